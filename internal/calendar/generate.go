package calendar

//go:generate go run gen_zonenames.go
