module github.com/almanac-sh/almanac/bench

go 1.26.0

require (
	github.com/adhocore/gronx v1.20.4
	github.com/almanac-sh/almanac v0.0.0
	github.com/hashicorp/cronexpr v1.1.2
	github.com/robfig/cron/v3 v3.0.1
)

require (
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/almanac-sh/almanac => ../
