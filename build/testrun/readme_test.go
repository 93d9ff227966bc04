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
	for _, name := range []string{"curl-sas", "curl-loose", "curl-signed", "js-setup", "js-example", "js-run"} {
		md += "<!-- test: " + name + " -->\n```sh\n" + name + " body\n```\n"
	}
	blocks, err := markedBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	if blocks["js-output"] != "smith john\n" || blocks["curl-signed"] != "curl-signed body\n" {
		t.Errorf("blocks = %q", blocks)
	}
	for _, name := range []string{"js-run", "curl-sas"} {
		if _, err := markedBlocks(strings.Replace(md, "test: "+name, "test: other", 1)); err == nil {
			t.Errorf("a README without %s passed", name)
		}
	}
	if _, err := markedBlocks(md + "<!-- test: js-run -->\n```sh\nagain\n```\n"); err == nil {
		t.Error("two blocks of one name passed")
	}
}

// A flag example is three blocks, its server line without a shell's
// syntax; one missing, or a line to be read by a shell, fails the README.
func TestFlagExamples(t *testing.T) {
	base := "<!-- test: js-output -->\n```text\nsmith john\n```\n"
	for _, name := range []string{"curl-sas", "curl-loose", "curl-signed", "js-setup", "js-example", "js-run"} {
		base += "<!-- test: " + name + " -->\n```sh\nbody\n```\n"
	}
	example := func(server string) string {
		return "<!-- test: slow-server -->\n```sh\n" + server + "\n```\n<!-- test: slow-example -->\n```js\nconsole.log(1)\n```\n<!-- test: slow-output -->\n```text\n1\n```\n"
	}
	blocks, err := markedBlocks(base + example("go run . -memory -fault op=QueryEntities,latency=1s"))
	if err != nil {
		t.Fatal(err)
	}
	flags, err := serverFlags(blocks["slow-server"])
	if names := flagExamples(blocks); err != nil || len(names) != 1 || names[0] != "slow" || strings.Join(flags, " ") != "-memory -fault op=QueryEntities,latency=1s" {
		t.Errorf("examples %q, flags %q, %v", names, flags, err)
	}
	for _, bad := range []string{
		base + example("go run . -fault 'op=QueryEntities,latency=1s'"),
		base + example("tablelab -memory"),
		base + strings.Replace(example("go run . -memory"), "slow-output", "other", 1),
	} {
		if _, err := markedBlocks(bad); err == nil {
			t.Errorf("passed:\n%s", bad[len(base):])
		}
	}
}
