package testrun

import (
	"os"
	"strings"
	"testing"
)

// The README's marked examples are all there, and the JavaScript one
// installs the SDK version the tests pin, so the README tier runs what a
// reader would.
func TestREADMEExamplesAreMarked(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := markedBlocks(string(md))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(blocks["js-example"], "TableClient.fromConnectionString") {
		t.Errorf("js-example = %q", blocks["js-example"])
	}
	if runScript.FindStringSubmatch(blocks["js-run"]) == nil {
		t.Errorf("js-run = %q, want one node FILE.mjs", blocks["js-run"])
	}
	lock, err := os.ReadFile("../../" + JSDir + "/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	readme, pinned := sdkVersions(blocks["js-setup"], string(lock))
	if pinned == "" || readme != pinned {
		t.Errorf("README installs @azure/data-tables@%q, the lock file pins %q", readme, pinned)
	}
}

func TestMarkedBlocks(t *testing.T) {
	md := "text\n<!-- test: js-output -->\n```text\nsmith john\n```\n"
	for _, name := range []string{"curl-loose", "curl-signed", "js-setup", "js-example", "js-run"} {
		md += "<!-- test: " + name + " -->\n```sh\n" + name + " body\n```\n"
	}
	blocks, err := markedBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	if blocks["js-output"] != "smith john\n" || blocks["curl-signed"] != "curl-signed body\n" {
		t.Errorf("blocks = %q", blocks)
	}
	if _, err := markedBlocks(strings.Replace(md, "test: js-run", "test: other", 1)); err == nil {
		t.Error("a README without js-run passed")
	}
	if _, err := markedBlocks(md + "<!-- test: js-run -->\n```sh\nagain\n```\n"); err == nil {
		t.Error("two blocks of one name passed")
	}
}
