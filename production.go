//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/faults"
	"github.com/tablelab/tablelab/engine/api/scanguard"
	"github.com/tablelab/tablelab/engine/api/throttle"
	"github.com/tablelab/tablelab/internal/server"
)

// production holds the flags that make the local server behave as the
// service does where a test suite should find out: scans reported or
// refused, the scalability targets enforced, faults injected, pages
// ended where the service may end them. Each is off by default, and
// then nothing of it is on the request path.
type production struct {
	scan      string
	scanPlans string
	throttle  string
	rules     []faults.Rule
	faultFile string
	faultSeed uint64
	paging    string
	budget    int

	targets throttle.Targets // read from throttle
	given   map[string]bool
}

// register adds the flags to fs.
func (p *production) register(fs *flag.FlagSet) {
	fs.StringVar(&p.scan, "scan", "", "`mode`: report each query that scans (a log line and an X-Tablelab-Scan-Warning header), or fail it with 400 TableScanRefused; -scan-plans says which plans count")
	fs.StringVar(&p.scanPlans, "scan-plans", scanguard.TableScan, "the `plans` -scan counts, separated by commas: table-scan, partition-scan")
	fs.StringVar(&p.throttle, "throttle", "", "enforce the scalability `targets`, answering 503 ServerBusy past them: azure (2,000 entities a second per table partition and messages per queue, 20,000 operations per account, 500 requests per blob), or changes to those such as partition=100,account=1000")
	fs.Func("fault", "inject a fault, a `rule` such as service=table,op=InsertEntity,resource=orders,p=0.3,error=ServerBusy (error: InternalError, ServerBusy, OperationTimedOut or drop; latency=200ms; when=after); repeatable", func(spec string) error {
		r, err := faults.ParseRule(spec)
		if err != nil {
			return err
		}
		p.rules = append(p.rules, r)
		return nil
	})
	fs.StringVar(&p.faultFile, "faults", "", "read fault rules, and a seed, from a JSON `file` ({\"seed\": 7, \"rules\": [{\"op\": \"InsertEntity\", \"p\": 0.3, \"error\": \"ServerBusy\"}]})")
	fs.Uint64Var(&p.faultSeed, "fault-seed", 1, "the `seed` of the faults' draws: the same requests, one after another, meet the same faults (overrides the file's)")
	fs.StringVar(&p.paging, "paging", "full", "where query pages end, a `mode`: full ($top, or 1,000) or production (also at each partition of a table scan, and after -page-budget examined entities, empty pages with continuations included)")
	fs.IntVar(&p.budget, "page-budget", 0, "the `entities` a query page may examine before it ends (default 1,000 under -paging production, 1,000,000 otherwise)")
}

// check reads and checks what the flags say, once parsed; given holds
// the flags set on the command line.
func (p *production) check(given map[string]bool) error {
	p.given = given
	switch p.scan {
	case "", "report", "fail":
	default:
		return fmt.Errorf("-scan %q: report or fail", p.scan)
	}
	if _, err := scanguard.New(nil, scanguard.Options{Mode: scanguard.Report, Plans: p.plans()}); err != nil {
		return fmt.Errorf("-scan-plans: %w", err)
	}
	if p.throttle != "" {
		t, err := throttle.ParseTargets(p.throttle)
		if err != nil {
			return fmt.Errorf("-throttle: %w", err)
		}
		p.targets = t
	}
	if p.faultFile != "" {
		rules, seed, err := faults.ReadFile(p.faultFile)
		if err != nil {
			return fmt.Errorf("-faults: %w", err)
		}
		p.rules = append(p.rules, rules...)
		if seed != nil && !given["fault-seed"] {
			p.faultSeed = *seed
		}
	}
	switch p.paging {
	case "full", "production":
	default:
		return fmt.Errorf("-paging %q: full or production", p.paging)
	}
	if p.budget < 0 {
		return errors.New("-page-budget: a number of entities, 0 for the default")
	}
	return nil
}

func (p *production) plans() []string { return strings.Split(p.scanPlans, ",") }

// pagingOf is the engine's paging the flags ask for.
func (p *production) pagingOf() engine.Paging {
	pg := engine.Paging{MaxExamined: p.budget}
	if p.paging == "production" {
		pg.PartitionBreaks = true
		if pg.MaxExamined == 0 {
			pg.MaxExamined = 1000
		}
	}
	return pg
}

// instruments wraps the services' cores as the flags ask: each table
// core in the scan guard, then every core in the limiter, then in the
// faults, so that an injected fault costs no throughput and a refused
// request scans nothing. now is the engine's clock, the limiter's.
func (p *production) instruments(services []*server.Service, now func() time.Time, logger *log.Logger) error {
	var limiter *throttle.Limiter
	if p.throttle != "" {
		limiter = throttle.NewLimiter(p.targets, now)
		t := p.targets
		logger.Printf("tablelab: -throttle: per second, %d entities per table partition, %d messages per queue, %d requests per blob, %d operations per account (0: no limit); past them 503 ServerBusy", t.Partition, t.Queue, t.Blob, t.Account)
	}
	var injector *faults.Injector
	if len(p.rules) > 0 {
		var err error
		if injector, err = faults.New(p.rules, faults.Options{Seed: p.faultSeed}); err != nil {
			return err
		}
		logger.Printf("tablelab: -fault: %d rules, seed %d", len(p.rules), p.faultSeed)
	}
	if p.scan != "" {
		logger.Printf("tablelab: -scan %s: %s", p.scan, p.scanPlans)
	}
	if p.paging == "production" || p.budget > 0 {
		pg := p.pagingOf()
		logger.Printf("tablelab: -paging %s: a page ends after %d examined entities; at each partition of a table scan: %v", p.paging, pg.MaxExamined, pg.PartitionBreaks)
	}
	for _, s := range services {
		name := strings.ToLower(s.Name)
		if s.Name == "Table" && p.scan != "" {
			mode := scanguard.Report
			if p.scan == "fail" {
				mode = scanguard.Refuse
			}
			g, err := scanguard.New(s.Core, scanguard.Options{Mode: mode, Plans: p.plans(), Logf: logger.Printf})
			if err != nil {
				return err
			}
			s.Core = g
		}
		if limiter != nil {
			kind := map[string]throttle.Service{"table": throttle.Table, "queue": throttle.Queue, "blob": throttle.Blob}[name]
			s.Core = limiter.Wrap(kind, s.Core)
		}
		if injector != nil {
			s.Core = injector.Wrap(name, s.Core)
		}
	}
	return nil
}
