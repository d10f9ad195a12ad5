module github.com/almanac-sh/almanac/bench

go 1.26.0

require github.com/almanac-sh/almanac v0.0.0

replace github.com/almanac-sh/almanac => ../
