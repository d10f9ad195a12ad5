package catalog

// checkExec applies Puppet's limits on an exec's retries: at least one try,
// and no negative pause between tries.
func checkExec(c *compiler, r int32) {
	tries, _ := c.get(r, "tries")
	if n, ok := tries.(int64); ok && n < 1 {
		c.paramFail(r, "tries", "Tries must be an integer >= 1")
	}
	sleep, _ := c.get(r, "try_sleep")
	if f, ok := toFloat(sleep); ok && f < 0 {
		c.paramFail(r, "try_sleep", "try_sleep cannot be a negative number")
	}
}
