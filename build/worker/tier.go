package worker

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/build/site"
	"github.com/tablelab/tablelab/build/testrun"
)

// JSDir holds the Worker's tests and the npm packages they run on
// (miniflare, which brings workerd), pinned by its lock file.
const JSDir = "build/worker/js"

// walkDir holds the real SDK walks the local server passes.
const walkDir = testrun.JSDir

// storages are the modes the walks run the Worker in.
var storages = []string{"memory", "durable"}

// Tier is the test command's Worker tier: the build and its size, the
// real JS SDK walks against the Worker under workerd on 127.0.0.1 in
// each storage mode, the Worker's own tests (the heap over 20,000
// requests, panics, restarts, partitions), and the docs' examples
// against its Durable Object mode.
func Tier(env testrun.Env) testrun.Tally {
	var t testrun.Tally
	if _, err := exec.LookPath("node"); err != nil {
		return env.CannotRun("the Worker under workerd", "node is not on PATH")
	}
	jsDir := filepath.Join(env.Root, JSDir)
	t.Add(testrun.Check("npm ci in "+JSDir, env.NpmCI(jsDir)))
	if _, err := os.Stat(filepath.Join(env.Root, walkDir, "node_modules", "@azure", "data-tables")); err != nil {
		t.Add(testrun.Check("npm ci in "+walkDir, env.NpmCI(filepath.Join(env.Root, walkDir))))
	}
	if t.Failed > 0 {
		return t
	}
	tmp, err := os.MkdirTemp("", "tablelab-worker-")
	if err != nil {
		t.Add(testrun.Check("worker build", err))
		return t
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "out")
	s, err := Build(env.Root, out)
	if err == nil {
		err = s.CheckLimit()
	}
	t.Add(testrun.Check("worker build: "+s.String(), err))
	if err != nil {
		return t
	}
	for _, storage := range storages {
		t.Add(walks(env, out, filepath.Join(tmp, "persist-"+storage), storage))
	}
	t.Add(node(env, "worker tests", jsDir, []string{"--test", "--test-reporter=tap", "--test-concurrency=1", "worker.test.mjs"},
		[]string{"WORKER_DIR=" + out}))
	// The docs' examples, from the pages of a site built here (dist/ is
	// the site tiers').
	pages := filepath.Join(tmp, "site")
	if err := site.Build(site.Options{Root: env.Root, Out: pages, NoEngine: true}); err != nil {
		t.Add(testrun.Check("the site's pages, for their examples", err))
		return t
	}
	t.Add(node(env, "the docs' examples against the Worker", jsDir, []string{"--test", "--test-reporter=tap", "--test-concurrency=1", "examples.test.mjs"},
		[]string{"WORKER_DIR=" + out, "SITE_DIR=" + pages}))
	return t
}

// walks runs the Table, Queue and Blob SDK walks against the Worker in
// dir, started with storage.
func walks(env testrun.Env, dir, persist, storage string) testrun.Tally {
	what := "SDK walks against the Worker (" + storage + ")"
	var ports []int
	var stop func()
	var err error
	// Ports free a moment ago may be taken by the time workerd binds
	// them: the machine is shared.
	for range 3 {
		if ports, err = freePorts(3); err != nil {
			return testrun.Check(what, err)
		}
		if stop, err = serve(env, dir, persist, ports, "TABLELAB_DEV=1", "TABLELAB_STORAGE="+storage); err == nil {
			break
		}
	}
	if err != nil {
		return testrun.Check(what, err)
	}
	defer stop()
	files, _ := filepath.Glob(filepath.Join(env.Root, walkDir, "*.test.mjs"))
	args := []string{"--test", "--test-reporter=tap"}
	for _, f := range files {
		args = append(args, filepath.Base(f))
	}
	key := "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	base := "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + key
	endpoint := func(p int) string { return "http://127.0.0.1:" + strconv.Itoa(p) + "/devstoreaccount1" }
	t := node(env, what, filepath.Join(env.Root, walkDir), args, []string{
		"TABLELAB=1",
		"TABLES_CONNECTION_STRING=" + base + ";TableEndpoint=" + endpoint(ports[2]) + "/",
		"STORAGE_CONNECTION_STRING=" + base + ";BlobEndpoint=" + endpoint(ports[0]) + ";QueueEndpoint=" + endpoint(ports[1]) + ";TableEndpoint=" + endpoint(ports[2]) + "/",
	})
	// The Worker is not the development storage on 127.0.0.1:10002: that
	// walk's skip says nothing about the Worker.
	skips := t.Skips[:0:0]
	for _, s := range t.Skips {
		if strings.Contains(s, "UseDevelopmentStorage=true") {
			t.Skipped--
			continue
		}
		skips = append(skips, s)
	}
	t.Skips = skips
	for i := range t.Failures {
		t.Failures[i] += " (" + storage + ")"
	}
	return t
}

// serve starts the Worker in dir under Miniflare (serve.mjs) and returns
// once it answers; stop ends it.
func serve(env testrun.Env, dir, persist string, ports []int, vars ...string) (stop func(), err error) {
	args := []string{"serve.mjs", dir, persist}
	for _, p := range ports {
		args = append(args, strconv.Itoa(p))
	}
	cmd := exec.Command("node", append(args, vars...)...)
	cmd.Dir = filepath.Join(env.Root, JSDir)
	cmd.Stderr = env.Out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() {
		// serve.mjs stops workerd when its input closes.
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			if sc.Text() == "ready" && !ok {
				ok = true
				ready <- true
			}
			env.Out.Write(append(sc.Bytes(), '\n'))
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if ok {
			return stop, nil
		}
		stop()
		return nil, errors.New("the Worker did not start (serve.mjs ended)")
	case <-time.After(60 * time.Second):
		stop()
		return nil, errors.New("the Worker did not start within a minute")
	}
}

// freePorts returns n ports free on 127.0.0.1 a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// node runs node with args in dir, counting its TAP report test by test.
func node(env testrun.Env, what, dir string, args, extraEnv []string) testrun.Tally {
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, env.Out)
	cmd.Stderr = env.Out
	runErr := cmd.Run()
	t := testrun.CountTAP(out.String(), "worker js")
	if runErr != nil && t.Failed == 0 {
		t.Fail(what + ": node --test: " + runErr.Error())
	}
	if t.Passed+t.Failed+t.Skipped == 0 {
		t.Fail(what + ": node --test ran no test")
	}
	return t
}
