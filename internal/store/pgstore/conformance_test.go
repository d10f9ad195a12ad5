package pgstore

import (
	"testing"

	"github.com/almanac-sh/almanac/internal/pgtest"
	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/storetest"
)

// TestConformance runs the shared store suite, each case on its own schema.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := Open(t.Context(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
