package agent_test

import (
	"testing"

	"github.com/almanac-sh/almanac/internal/agent"
	"github.com/almanac-sh/almanac/internal/agent/agenttest"
)

func TestMemoryStore(t *testing.T) {
	agenttest.Run(t, func(*testing.T) agent.StateStore { return agent.NewMemoryStore() })
}
