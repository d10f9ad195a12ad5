package zincati

import "fmt"

// maxNesting bounds how deeply arrays and inline tables may nest in a
// fragment. A window fragment needs three levels at most; the TOML decoder
// recurses once per level and a few megabytes of '[' would exhaust the
// stack, which Go cannot recover from, so deeper input is refused before
// decoding.
const maxNesting = 64

// checkNesting returns the position of the first '[' or '{' that opens a
// level beyond maxNesting, outside strings and comments, if there is one.
func checkNesting(text string) (position, error) {
	line, lineStart, depth := 1, 0, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n':
			line, lineStart = line+1, i+1
		case '#':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			delim := string(c)
			if i+2 < len(text) && text[i+1] == c && text[i+2] == c {
				delim = string([]byte{c, c, c})
			}
			i += len(delim)
			for ; i < len(text); i++ {
				if text[i] == '\\' && c == '"' {
					i++
					continue
				}
				if text[i] == '\n' {
					line, lineStart = line+1, i+1
				}
				if i+len(delim) <= len(text) && text[i:i+len(delim)] == delim {
					i += len(delim) - 1
					break
				}
			}
		case '[', '{':
			if depth++; depth > maxNesting {
				return position{line: line, col: i - lineStart + 1},
					fmt.Errorf("arrays or inline tables nested more than %d deep", maxNesting)
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return position{}, nil
}
