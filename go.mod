module github.com/almanac-sh/almanac

go 1.26.0
