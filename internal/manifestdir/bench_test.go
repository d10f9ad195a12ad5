package manifestdir

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/almanac-sh/almanac/internal/clock"
)

// BenchmarkCheckUnchanged is the idle cost of one poll: 100 manifests of
// 10 jobs each are read and hashed, and nothing is compiled.
func BenchmarkCheckUnchanged(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{}
	for i := range 100 {
		src := ""
		for j := range 10 {
			src += fmt.Sprintf("job { 'job-%d-%d':\n  cron => '*/5 * * * *',\n  command => ['/usr/bin/true', '%d'],\n}\n", i, j, j)
		}
		files[fmt.Sprintf("m%03d.pp", i)] = src
	}
	write(b, dir, files)
	w, err := NewWatcher(dir, WatchConfig{Clock: clock.NewFake(time.Unix(0, 0)),
		Accept: func(context.Context, *Snapshot) error { return nil }})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if changed, err := w.Check(ctx); !changed || err != nil {
		b.Fatal(changed, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if changed, err := w.Check(ctx); changed || err != nil {
			b.Fatal(changed, err)
		}
	}
}

// BenchmarkLoad compiles the same directory from scratch (a reload).
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{}
	for i := range 100 {
		src := ""
		for j := range 10 {
			src += fmt.Sprintf("job { 'job-%d-%d':\n  cron => '*/5 * * * *',\n  command => ['/usr/bin/true', '%d'],\n}\n", i, j, j)
		}
		files[fmt.Sprintf("m%03d.pp", i)] = src
	}
	write(b, dir, files)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := load(dir); err != nil {
			b.Fatal(err)
		}
	}
}
