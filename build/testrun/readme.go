package testrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tablelab/tablelab/build/localserver"
)

// The README marks each example this tier runs with an HTML comment,
// invisible when rendered, on the line before its fenced block:
//
//	<!-- test: NAME -->
//
// curl-sas      curl commands with a SAS, against the server as go run . starts it
// curl-loose    curl commands against a server started with -loose
// curl-signed   curl commands signed with SharedKeyLite
// js-setup      the shell commands that make a fresh npm folder
// js-example    the JavaScript example
// js-run        the command that runs it
// js-output     what it prints
//
// and, for each flag example NAME, run in the same npm folder against a
// server started with the flags its first block gives:
//
// NAME-server   the one line `go run . FLAGS` (no quotes)
// NAME-example  the JavaScript, saved as NAME.mjs
// NAME-output   what `node NAME.mjs` prints
var marker = regexp.MustCompile("(?m)^<!-- test: ([a-z-]+) -->\n```[a-z]*\n")

// markedBlocks returns the README's marked fenced blocks by name.
func markedBlocks(md string) (map[string]string, error) {
	blocks := map[string]string{}
	for _, m := range marker.FindAllStringSubmatchIndex(md, -1) {
		name := md[m[2]:m[3]]
		body := md[m[1]:]
		end := strings.Index(body, "\n```")
		if end < 0 {
			return nil, fmt.Errorf("README: block %q is not closed", name)
		}
		if _, dup := blocks[name]; dup {
			return nil, fmt.Errorf("README: two blocks named %q", name)
		}
		blocks[name] = body[:end+1]
	}
	for _, name := range []string{"curl-sas", "curl-loose", "curl-signed", "js-setup", "js-example", "js-run", "js-output"} {
		if blocks[name] == "" {
			return nil, fmt.Errorf("README: no block marked <!-- test: %s -->", name)
		}
	}
	for _, name := range flagExamples(blocks) {
		for _, part := range []string{"-example", "-output"} {
			if blocks[name+part] == "" {
				return nil, fmt.Errorf("README: the flag example %s has no block marked <!-- test: %s%s -->", name, name, part)
			}
		}
		if _, err := serverFlags(blocks[name+"-server"]); err != nil {
			return nil, fmt.Errorf("README: %s-server: %v", name, err)
		}
	}
	return blocks, nil
}

// flagExamples returns the names of the flag examples among blocks, in
// order.
func flagExamples(blocks map[string]string) []string {
	var names []string
	for b := range blocks {
		if name, ok := strings.CutSuffix(b, "-server"); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// serverFlags reads a flag example's server block, one line
// `go run . FLAGS`, into the flags.
func serverFlags(block string) ([]string, error) {
	line := strings.TrimSpace(block)
	args, ok := strings.CutPrefix(line, "go run . ")
	switch {
	case !ok || strings.Contains(line, "\n"):
		return nil, fmt.Errorf("%q is not one line `go run . FLAGS`", line)
	case strings.ContainsAny(args, "'\"\\$`;&|<>#"):
		return nil, fmt.Errorf("%q: the flags are run without a shell; write them without quotes or shell syntax", line)
	}
	return strings.Fields(args), nil
}

var (
	sdkInstall = regexp.MustCompile(`npm install @azure/data-tables@(\S+)`)
	sdkPinned  = regexp.MustCompile(`"node_modules/@azure/data-tables": \{\s*"version": "([^"]+)"`)
	runScript  = regexp.MustCompile(`^node (\S+\.mjs)\n$`)
)

// sdkVersions returns the @azure/data-tables version the README installs
// and the one the tests' lock file pins.
func sdkVersions(setup, lock string) (readme, pinned string) {
	if m := sdkInstall.FindStringSubmatch(setup); m != nil {
		readme = m[1]
	}
	if m := sdkPinned.FindStringSubmatch(lock); m != nil {
		pinned = m[1]
	}
	return readme, pinned
}

// README runs the README's examples as a reader would, against servers
// this tier starts where the examples point (127.0.0.1:10002): the curl
// commands with a SAS against a server that checks credentials, as
// `go run .` starts one, the ones with -loose, the ones signed with
// SharedKeyLite, and the JavaScript example in a fresh `npm init -y`
// folder with @azure/data-tables at the version the tests pin, its output
// held to the one the README shows.
func README(env Env) Tally {
	const (
		sas    = "README: curl with a SAS, against the server as go run . starts it"
		loose  = "README: curl with -loose"
		signed = "README: curl signed with SharedKeyLite"
		js     = "README: the JavaScript example in a fresh npm init -y folder"
	)
	md, err := os.ReadFile(filepath.Join(env.Root, "README.md"))
	if err != nil {
		return Check("README", err)
	}
	blocks, err := markedBlocks(string(md))
	if err != nil {
		return Check("README", err)
	}
	if !localserver.Free(localserver.DevStoreAddr) {
		var t Tally
		reason := "the examples point at 127.0.0.1:10002, which something else listens on; free it"
		for _, what := range []string{sas, loose, signed, js} {
			t.Add(env.CannotRun(what, reason))
		}
		return t
	}
	tmp, err := os.MkdirTemp("", "tablelab-readme-")
	if err != nil {
		return Check("README", err)
	}
	defer os.RemoveAll(tmp)
	bin, err := env.ServerBinary()
	if err != nil {
		return Check("README", err)
	}
	lock, err := os.ReadFile(filepath.Join(env.Root, JSDir, "package-lock.json"))
	if err != nil {
		return Check("README", err)
	}
	var t Tally
	srv, err := startAtDevStore(bin, tmp, "-memory")
	t.Add(Check(sas, expectShell(tmp, blocks["curl-sas"], err, `"Email":"john@example.com"`)))
	srv.Stop()
	srv, err = startAtDevStore(bin, tmp, "-memory", "-loose")
	t.Add(Check(loose, expectShell(tmp, blocks["curl-loose"], err, `"Email":"john@example.com"`)))
	srv.Stop()
	srv, err = startAtDevStore(bin, tmp, "-memory")
	t.Add(Check(signed, expectShell(tmp, blocks["curl-signed"], err, `"TableName":"orders"`)))
	var folder string
	if err == nil {
		folder, err = runJSExample(tmp, blocks, string(lock))
	}
	t.Add(Check(js, err))
	srv.Stop()
	for _, name := range flagExamples(blocks) {
		flags, _ := serverFlags(blocks[name+"-server"])
		what := "README: the " + name + " example (go run . " + strings.Join(flags, " ") + ")"
		if folder == "" {
			t.Add(Check(what, errors.New("the JavaScript example's npm folder was not made")))
			continue
		}
		srv, err := startAtDevStore(bin, tmp, flags...)
		if err == nil {
			err = runExample(folder, name+".mjs", blocks[name+"-example"], blocks[name+"-output"])
		}
		srv.Stop()
		t.Add(Check(what, err))
	}
	return t
}

// runJSExample makes the fresh folder as the README says, saves the
// example where its run command looks, runs it and compares the output.
// It returns the folder, where the flag examples run too.
func runJSExample(dir string, blocks map[string]string, lock string) (string, error) {
	readme, pinned := sdkVersions(blocks["js-setup"], lock)
	if readme == "" || readme != pinned {
		return "", fmt.Errorf("the README installs @azure/data-tables@%s, the tests pin %s in %s", readme, pinned, JSDir)
	}
	if !strings.Contains(blocks["js-setup"], "npm init -y") {
		return "", errors.New("the README's setup does not start from npm init -y")
	}
	if out, err := shell(dir, blocks["js-setup"]+"pwd\n"); err != nil {
		return "", fmt.Errorf("setup: %v\n%s", err, out)
	} else {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		dir = lines[len(lines)-1] // where the setup left the reader
	}
	m := runScript.FindStringSubmatch(blocks["js-run"])
	if m == nil {
		return dir, fmt.Errorf("the run block %q is not one `node FILE.mjs`", blocks["js-run"])
	}
	return dir, runExample(dir, m[1], blocks["js-example"], blocks["js-output"])
}

// runExample saves code as file in dir, runs `node file` there and compares
// what it prints with want.
func runExample(dir, file, code, want string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(code), 0o644); err != nil {
		return err
	}
	out, err := shell(dir, "node "+file+"\n")
	if err != nil {
		return fmt.Errorf("node %s: %v\n%s", file, err, out)
	}
	if out != want {
		return fmt.Errorf("node %s printed %q, the README shows %q", file, out, want)
	}
	return nil
}

// startAtDevStore starts the server where the examples point,
// 127.0.0.1:10002, with flags.
func startAtDevStore(bin, dir string, flags ...string) (*localserver.Process, error) {
	return localserver.Start(localserver.Tablelab(bin, localserver.DevStoreAddr, flags...), dir, localserver.DevStoreAddr, 20*time.Second)
}

// shell runs script with bash in dir, stopping at the first failing
// command, and returns its standard output (and error output after it).
func shell(dir, script string) (string, error) {
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return out.String() + errOut.String(), err
		}
		return out.String(), nil
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill() // the shell this function started
		<-done
		return out.String() + errOut.String(), errors.New("no end within 5 minutes")
	}
}

// expectShell runs script in dir, unless the server did not start
// (startErr), and checks that it succeeded, met no service error and
// printed want.
func expectShell(dir, script string, startErr error, want string) error {
	if startErr != nil {
		return startErr
	}
	out, err := shell(dir, script)
	switch {
	case err != nil:
		return fmt.Errorf("%v\n%s", err, out)
	case strings.Contains(out, "odata.error"):
		return fmt.Errorf("the service answered an error:\n%s", out)
	case !strings.Contains(out, want):
		return fmt.Errorf("output lacks %s:\n%s", want, out)
	}
	return nil
}
