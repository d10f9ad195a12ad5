package webui

import (
	"slices"
	"strings"
	"testing"
)

// FuzzPaginate checks the jobs list's paging on any sorted names, start
// and page size, in the orders by name and in an order by another key
// (the names as given): the page is the names after after, at most limit
// of them; Offset counts the names before it; Next continues right after
// it; and following Prev gives the page that ends where this one starts.
func FuzzPaginate(f *testing.F) {
	f.Add("a,b,c,d,e", "b", 2)
	f.Add("a,b,c", "", 5)
	f.Add("a,b,c,d", "zz", 1)
	f.Add("", "x", 0)
	f.Add("backup-10,backup-2,backup-1", "backup-2", 1)
	f.Fuzz(func(t *testing.T, list, after string, limit int) {
		if limit < 0 || limit > 1000 {
			return
		}
		var names []string
		if list != "" {
			names = strings.Split(list, ",")
		}
		for _, o := range []JobSort{{Key: JobSortName}, {Key: JobSortName, Desc: true}, {Key: JobSortNext}} {
			paginate(t, names, after, limit, o)
		}
	})
}

// paginate checks one order of FuzzPaginate.
func paginate(t *testing.T, names []string, after string, limit int, o JobSort) {
	t.Helper()
	order := JobOrder(o.Desc)
	if o.ByName() {
		names = slices.Clone(names)
		slices.SortFunc(names, order)
		names = slices.Compact(names)
	} else {
		// Another key's order: the names as given, each once; a name is
		// after another when it comes later.
		var seen []string
		for _, n := range names {
			if !slices.Contains(seen, n) {
				seen = append(seen, n)
			}
		}
		names = seen
		order = func(a, b string) int {
			ia, ib := slices.Index(names, a), slices.Index(names, b)
			if ib < 0 {
				return 1 // a name no longer listed starts the list again
			}
			return ia - ib
		}
	}
	{
		var p JobPage
		page := Paginate(names, after, limit, o, &p)
		if p.Total != len(names) {
			t.Fatalf("Total %d of %d names", p.Total, len(names))
		}
		if limit > 0 && len(page) > limit {
			t.Fatalf("%d names on a page of %d", len(page), limit)
		}
		for _, n := range page {
			if after != "" && order(n, after) <= 0 {
				t.Fatalf("%q on the page after %q", n, after)
			}
		}
		if p.Offset+len(page) > len(names) || (len(page) > 0 && names[p.Offset] != page[0]) {
			t.Fatalf("Offset %d does not place the page %v in %v", p.Offset, page, names)
		}
		if p.Next != "" && (len(page) == 0 || p.Next != page[len(page)-1] || p.Offset+len(page) == len(names)) {
			t.Fatalf("Next %q after the page %v of %v", p.Next, page, names)
		}
		if p.HasPrev != (p.Offset > 0) {
			t.Fatalf("HasPrev %v at offset %d", p.HasPrev, p.Offset)
		}
		if p.HasPrev && limit > 0 {
			var q JobPage
			prev := Paginate(names, p.Prev, limit, o, &q)
			if q.Offset+len(prev) != p.Offset && q.Offset != 0 {
				t.Fatalf("the previous page %v (offset %d) does not end where %v starts (offset %d)", prev, q.Offset, page, p.Offset)
			}
		}
	}
}
