package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// tally counts test results across tiers.
type tally struct {
	passed, failed int
	failures       []string
}

func (t *tally) add(o tally) {
	t.passed += o.passed
	t.failed += o.failed
	t.failures = append(t.failures, o.failures...)
}

// jsDir holds the real-JS-SDK walk and its lock file.
const jsDir = "engine/api/testdata/js"

func runTests(args []string) error {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	short := fs.Bool("short", false, "pass -short to go test")
	if err := fs.Parse(args); err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if err := os.Chdir(root); err != nil {
		return err
	}
	var total tally
	var setupErr []string

	if err := npmInstall(jsDir); err != nil {
		setupErr = append(setupErr, err.Error())
	}

	step("go vet")
	if err := run("go", "vet", "./..."); err != nil {
		total.failed++
		total.failures = append(total.failures, "go vet")
	}

	step("go test (unit, fuzz seeds, Go SDK conformance, crash recovery)")
	goArgs := []string{"test", "-json", "-count=1", "-timeout=15m"}
	if *short {
		goArgs = append(goArgs, "-short")
	}
	goArgs = append(goArgs, "./...")
	total.add(goTest(goArgs...))

	step("go test -race (the engine and the protocol, for data races)")
	if err := run("go", "test", "-race", "-count=1", "-timeout=10m", "./engine/..."); err != nil {
		total.failed++
		total.failures = append(total.failures, "go test -race ./engine/...")
	} else {
		total.passed++
	}

	step("JS SDK walk against the real server")
	if t, err := jsWalk(); err != nil {
		total.failed++
		total.failures = append(total.failures, "js walk: "+err.Error())
	} else {
		total.add(t)
	}

	for _, e := range setupErr {
		total.failed++
		total.failures = append(total.failures, "setup: "+e)
	}
	fmt.Println()
	for _, f := range total.failures {
		fmt.Println("FAILED:", f)
	}
	fmt.Printf("%d passed, %d failed\n", total.passed, total.failed)
	if total.failed > 0 {
		return errors.New("tests failed")
	}
	return nil
}

func step(name string) { fmt.Printf("\n=== %s\n", name) }

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the tablelab module")
	}
	return filepath.Dir(mod), nil
}

func run(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// npmInstall installs a directory's npm packages exactly as its lock file
// pins them.
func npmInstall(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err != nil {
		return fmt.Errorf("%s: no package-lock.json", dir)
	}
	step("npm ci in " + dir)
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in %s: %w", dir, err)
	}
	return nil
}

// goTest runs go test -json and counts tests and subtests.
func goTest(args ...string) tally {
	var t tally
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.failed++
		return t
	}
	if err := cmd.Start(); err != nil {
		t.failed++
		t.failures = append(t.failures, "go test: "+err.Error())
		return t
	}
	type event struct {
		Action, Package, Test, Output string
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	buildFailed := map[string]bool{}
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Println(sc.Text()) // build errors come as plain text
			continue
		}
		switch e.Action {
		case "output":
			// Keep the log readable: show failures and package summaries.
			if strings.HasPrefix(e.Output, "--- FAIL") || strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "ok ") || strings.Contains(e.Output, "_test.go:") || strings.HasPrefix(e.Output, "panic:") {
				fmt.Print(e.Output)
			}
		case "pass":
			if e.Test != "" {
				t.passed++
			}
		case "fail":
			if e.Test != "" {
				t.failed++
				t.failures = append(t.failures, e.Package+" "+e.Test)
			} else if !buildFailed[e.Package] {
				buildFailed[e.Package] = true
			}
		}
	}
	if err := cmd.Wait(); err != nil && t.failed == 0 {
		// A package that failed without a failing test: a build error,
		// a panic outside tests or a timeout.
		t.failed++
		t.failures = append(t.failures, "go test: "+err.Error())
	}
	return t
}

// freePort returns a loopback port nobody listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// devKey is the development account's well-known key.
const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

// jsWalk builds the server, starts it on loopback — on 10002 when that
// port is free, so that UseDevelopmentStorage=true is tested too — and
// runs the JS SDK walk against it with node's test runner.
func jsWalk() (tally, error) {
	tmp, err := os.MkdirTemp("", "tablelab-test-")
	if err != nil {
		return tally{}, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "tablelab")
	if err := run("go", "build", "-o", bin, "."); err != nil {
		return tally{}, fmt.Errorf("building the server: %w", err)
	}
	port, devstore := 10002, true
	if ln, err := net.Listen("tcp", "127.0.0.1:10002"); err != nil {
		devstore = false
		if port, err = freePort(); err != nil {
			return tally{}, err
		}
	} else {
		ln.Close()
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var serverLog bytes.Buffer
	srv := exec.Command(bin, "-table-addr", addr, "-data", filepath.Join(tmp, "data"), "-quiet")
	srv.Stdout, srv.Stderr = &serverLog, &serverLog
	if err := srv.Start(); err != nil {
		return tally{}, err
	}
	defer func() {
		_ = srv.Process.Kill() // the server this function started, by its PID
		_ = srv.Wait()
	}()
	if err := waitListening(addr, 20*time.Second); err != nil {
		return tally{}, fmt.Errorf("server did not start: %v\n%s", err, serverLog.String())
	}
	files, _ := filepath.Glob(filepath.Join(jsDir, "*.test.mjs"))
	if len(files) == 0 {
		return tally{}, errors.New("no *.test.mjs files in " + jsDir)
	}
	nodeArgs := []string{"--test", "--test-reporter=tap"}
	for _, f := range files {
		nodeArgs = append(nodeArgs, filepath.Base(f))
	}
	cmd := exec.Command("node", nodeArgs...)
	cmd.Dir = jsDir
	cmd.Env = append(os.Environ(),
		"TABLES_CONNECTION_STRING=DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey="+devKey+";TableEndpoint=http://"+addr+"/devstoreaccount1",
		"TABLELAB=1",
	)
	if devstore {
		cmd.Env = append(cmd.Env, "TABLES_DEVSTORE=1")
	}
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, os.Stdout)
	cmd.Stderr = os.Stderr
	runErr := cmd.Run()
	t := tapTally(out.String())
	if runErr != nil && t.failed == 0 {
		return t, fmt.Errorf("node --test: %v", runErr)
	}
	return t, nil
}

var tapCount = regexp.MustCompile(`(?m)^# (pass|fail) (\d+)$`)
var tapFail = regexp.MustCompile(`(?m)^\s*not ok \d+ - (.*)$`)

// tapTally reads the totals node's TAP reporter prints last.
func tapTally(out string) tally {
	var t tally
	for _, m := range tapCount.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		if m[1] == "pass" {
			t.passed = n
		} else {
			t.failed = n
		}
	}
	for _, m := range tapFail.FindAllStringSubmatch(out, -1) {
		t.failures = append(t.failures, "js: "+m[1])
	}
	return t
}

func waitListening(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
