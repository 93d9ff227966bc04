// Command build is tablelab's build, test and benchmark driver.
//
//	go run ./build test [-short] [-tiers word,…]   every tier of checks, each tier's log in build/out/test; the last line is "N passed, N failed[, N skipped]"
//	go run ./build bench [flags]                   tablelab and Azurite side by side under one load (package bench)
//	go run ./build floor-server -addr … -dir …     the benchmark's do-nothing server (package floor)
//	go run ./build site [-out dist] [-check]         the docs site, content/ → dist/ (package site)
//	go run ./build wasm [-bench]                   the browser engine's sizes and what they come from; -bench: native, wasm and bridge side by side (package wasm)
//	go run ./build worker [-o dir]                 the Cloudflare Worker's deployable folder and its size against the limit (package worker)
//
// Each command is a package of its own; this file only dispatches.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tablelab/tablelab/build/bench"
	"github.com/tablelab/tablelab/build/floor"
	"github.com/tablelab/tablelab/build/site"
	"github.com/tablelab/tablelab/build/testrun"
	"github.com/tablelab/tablelab/build/wasm"
	"github.com/tablelab/tablelab/build/worker"
)

// commands are the driver's commands that work in the module: each runs
// from its root.
var commands = map[string]func(root string, args []string) error{
	"test":   test,
	"bench":  bench.Run,
	"site":   site.Main,
	"wasm":   func(root string, args []string) error { return wasm.Main(root, args, os.Stdout) },
	"worker": func(root string, args []string) error { return worker.Main(root, args, os.Stdout) },
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./build test|bench|site|wasm|worker|floor-server [flags]")
		os.Exit(2)
	}
	if err := dispatch(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

func dispatch(command string, args []string) error {
	if command == "floor-server" {
		// Started by the benchmark from anywhere; it needs no module.
		return floor.Main(args, bench.PointReadBody())
	}
	run, ok := commands[command]
	if !ok {
		return fmt.Errorf("unknown command %q", command)
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	return run(root, args)
}

// test runs the tiers (tiers.go), or those whose names contain one of
// -tiers' words.
func test(root string, args []string) error {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	short := fs.Bool("short", false, "pass -short to go test")
	only := fs.String("tiers", "", "run only the tiers whose names contain one of these comma-separated words")
	if err := fs.Parse(args); err != nil {
		return err
	}
	env := testrun.Env{Root: root, Short: *short, CI: os.Getenv("CI") == "true", Out: os.Stdout, LogDir: filepath.Join(root, testrun.LogDir)}
	run := tiers
	if *only != "" {
		run = nil
		for _, t := range tiers {
			for _, w := range strings.Split(*only, ",") {
				if strings.Contains(t.Name, w) {
					run = append(run, t)
					break
				}
			}
		}
	}
	if testrun.Run(env, run).Failed > 0 {
		return errors.New("tests failed")
	}
	return nil
}

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
