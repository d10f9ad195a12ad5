package webui

// NaturalCompare orders names as people read them: runs of digits compare
// by their number, so backup-2 comes before backup-10; everything else
// compares byte by byte. Equal numbers with more leading zeros sort after
// ("a-1" < "a-01"), so no two different names compare equal. It returns
// -1, 0 or +1 like strings.Compare.
func NaturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			if c := compareDigits(a[si:i], b[sj:j]); c != 0 {
				return c
			}
			continue
		}
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
		i++
		j++
	}
	switch {
	case len(a)-i < len(b)-j:
		return -1
	case len(a)-i > len(b)-j:
		return 1
	}
	// Same text and numbers: the shorter (fewer leading zeros) first.
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// compareDigits compares two runs of digits by their value, however long,
// and then by their length (leading zeros).
func compareDigits(x, y string) int {
	tx, ty := trimZeros(x), trimZeros(y)
	if len(tx) != len(ty) {
		if len(tx) < len(ty) {
			return -1
		}
		return 1
	}
	for k := range len(tx) {
		if tx[k] != ty[k] {
			if tx[k] < ty[k] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}
