package pgstore

import (
	"testing"

	"github.com/almanac-sh/almanac/internal/store"
	"github.com/almanac-sh/almanac/internal/store/storetest"
)

// TestConformance runs the shared store suite, each case on its own schema.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return openContracted(t)
	})
}
