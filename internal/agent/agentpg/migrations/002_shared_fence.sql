-- Fenced writes now call almanac_fence, which package leader's
-- migrations own; the agent's copy of the same function goes.
DROP FUNCTION IF EXISTS almanac_agent_fence(text, bigint, interval);
