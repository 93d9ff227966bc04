package testrun

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BrowserDir holds the browser test and the parity run of the site's
// examples, with the lock file pinning playwright-core and the SDK.
const BrowserDir = "build/browser"

// chromiumPath is where Debian's chromium package puts the browser; the
// browser test drives that one and never lets a tool download its own.
const chromiumPath = "/usr/bin/chromium"

// Browser runs the built site in headless Chromium (build/browser's
// site.test.mjs, exercises.test.mjs, playground.test.mjs, a11y.test.mjs,
// search.test.mjs, explorer.test.mjs and embed.test.mjs): every page,
// every run example, every exercise failing as given and passing as
// solved, the reading order and progress, share links, export and import,
// reload persistence, responsiveness under a load, the playground's care
// for the reader's work and its errors, axe-core on every page in both
// themes, the search box, the local server's explorer and inspector while
// the JS SDK writes to it, and the embed on pages of another origin;
// screenshots. It installs Debian's chromium when it is missing.
func Browser(env Env) Tally {
	const what = "the site in headless Chromium"
	t, ok := browserSetup(env)
	if !ok {
		return t
	}
	if reason := installChromium(env); reason != "" {
		t.Add(env.CannotRun(what, reason))
		return t
	}
	t.Add(nodeTests(env, what, "site.test.mjs", "exercises.test.mjs", "playground.test.mjs", "a11y.test.mjs", "search.test.mjs", "explorer.test.mjs", "embed.test.mjs"))
	return t
}

// Parity runs every example of the built site in Node with the real
// @azure/data-tables against the local server (build/browser's
// parity.test.mjs), held to its declared output and plans and to what the
// browser printed; checks every exercise's starting design (it must fail)
// and solution (it must pass) with the same grader, held to the browser's
// verdicts (exercise-parity.test.mjs); and runs page examples through the
// prelude in a Node script of their own (prelude.test.mjs).
func Parity(env Env) Tally {
	t, ok := browserSetup(env)
	if !ok {
		return t
	}
	t.Add(nodeTests(env, "the examples and exercises in Node with the real SDK", "parity.test.mjs", "exercise-parity.test.mjs", "prelude.test.mjs"))
	return t
}

// browserSetup installs BrowserDir's packages and checks that the site
// has been built, one check each; ok is false when the tests cannot run.
func browserSetup(env Env) (t Tally, ok bool) {
	install := Check("npm ci in "+BrowserDir, env.npmCI(filepath.Join(env.Root, BrowserDir)))
	t.Add(install)
	var err error
	if _, statErr := os.Stat(filepath.Join(env.Root, "dist", "index.html")); statErr != nil {
		err = errors.New("dist/index.html is missing: the site build (go run ./build site) must run first")
	}
	t.Add(Check("the built site for "+BrowserDir, err))
	return t, install.Failed == 0 && err == nil
}

// installChromium makes sure chromiumPath exists, installing Debian's
// package when it does not, and says why when that fails.
func installChromium(env Env) string {
	if _, err := os.Stat(chromiumPath); err == nil {
		return ""
	}
	fmt.Fprintln(env.Out, "installing Debian's chromium (apt-get)")
	cmd := exec.Command("sh", "-c", "apt-get update && apt-get install -y chromium")
	cmd.Stdout, cmd.Stderr = env.Out, env.Out
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if err := cmd.Run(); err != nil {
		return "apt-get install -y chromium failed (" + err.Error() + "); it needs root and Debian's package archive"
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		return "apt-get installed chromium but " + chromiumPath + " is missing"
	}
	return ""
}

// nodeTests runs node's test runner on files in BrowserDir, with the
// server the test command built for them to start, counted test by test
// from its TAP report.
func nodeTests(env Env, what string, files ...string) Tally {
	bin, err := env.BinEnv()
	if err != nil {
		return Check(what, err)
	}
	extra := []string{bin}
	if env.CI {
		extra = append(extra, "CI=true")
	}
	return runNode(env, what, filepath.Join(env.Root, BrowserDir), append([]string{"--test", "--test-reporter=tap", "--test-concurrency=1"}, files...), extra)
}
