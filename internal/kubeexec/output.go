package kubeexec

import (
	"fmt"
	"sync"
)

// output keeps the last max bytes of a run's output: the executor's own
// notes and the Pods' logs.
type output struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(b)
	if len(b) >= o.max {
		o.dropped += int64(len(o.buf) + len(b) - o.max)
		o.buf = append(o.buf[:0], b[len(b)-o.max:]...)
		return n, nil
	}
	if over := len(o.buf) + len(b) - o.max; over > 0 {
		o.dropped += int64(over)
		o.buf = append(o.buf[:0], o.buf[over:]...)
	}
	o.buf = append(o.buf, b...)
	return n, nil
}

// notef writes one line of the executor's own, marked as almanac's.
func (o *output) notef(format string, a ...any) {
	fmt.Fprintf(o, "[almanac] "+format+"\n", a...)
}

// since returns the output from offset on and the offset after it.
func (o *output) since(offset int64) ([]byte, int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	total := o.dropped + int64(len(o.buf))
	if offset >= total {
		return nil, total
	}
	start := max(offset-o.dropped, 0)
	return append([]byte(nil), o.buf[start:]...), total
}

// bytes returns what is kept, after a note of what was dropped.
func (o *output) bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.dropped == 0 {
		return append([]byte(nil), o.buf...)
	}
	return append([]byte(fmt.Sprintf("[almanac: %d earlier bytes dropped]\n", o.dropped)), o.buf...)
}
