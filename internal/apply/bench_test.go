package apply_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/almanac-sh/almanac/internal/apply"
	"github.com/almanac-sh/almanac/internal/clock"
	"github.com/almanac-sh/almanac/internal/provider/notify"
)

// notifyCatalog builds n notify resources in Class[Main] with m random
// forward edges (a third of them notifying), so the graph is acyclic.
func notifyCatalog(n, m int) *apply.Catalog {
	r := rand.New(rand.NewPCG(1, 2))
	cat := &apply.Catalog{Resources: []*apply.Resource{
		{Type: "Stage", Title: "main"},
		{Type: "Class", Title: "Main", Container: "Stage[main]"},
	}}
	for i := range n {
		cat.Resources = append(cat.Resources, &apply.Resource{Type: "notify", Title: fmt.Sprintf("n%d", i),
			Params: map[string]any{"message": "m"}, Container: "Class[Main]"})
	}
	for i := range m {
		a, b := r.IntN(n), r.IntN(n)
		if a == b {
			b = (a + 1) % n
		}
		if a > b {
			a, b = b, a
		}
		kind := apply.Before
		if i%3 == 0 {
			kind = apply.Notify
		}
		cat.Edges = append(cat.Edges, apply.Edge{From: fmt.Sprintf("Notify[n%d]", a), To: fmt.Sprintf("Notify[n%d]", b), Kind: kind})
	}
	return cat
}

// BenchmarkPlanAndNoopApply10k is the target: plan and noop-apply a
// 10,000-resource / 30,000-edge catalog.
func BenchmarkPlanAndNoopApply10k(b *testing.B) {
	cat := notifyCatalog(10_000, 30_000)
	opts := apply.Options{Noop: true, Clock: clock.Real{}, Providers: map[string]apply.Provider{"notify": notify.Provider{}}, State: apply.NewState()}
	b.ReportAllocs()
	for b.Loop() {
		p, err := apply.NewPlan(cat, apply.OrderManifest, 0)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := apply.Run(context.Background(), p, opts)
		if err != nil || rep.OutOfSync != 10_000 {
			b.Fatal(err, rep.OutOfSync)
		}
	}
}

func BenchmarkPlan10k(b *testing.B) {
	cat := notifyCatalog(10_000, 30_000)
	b.ReportAllocs()
	for b.Loop() {
		p, err := apply.NewPlan(cat, apply.OrderTitleHash, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Order(); err != nil {
			b.Fatal(err)
		}
		if len(p.Cycles(1)) != 0 {
			b.Fatal("cycle")
		}
	}
}
