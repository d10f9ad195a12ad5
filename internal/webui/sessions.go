package webui

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"
)

// DefaultSessionIdle is how long a web UI session lasts without a request
// when Config.SessionIdle is not set.
const DefaultSessionIdle = 12 * time.Hour

// maxSessions bounds the sessions kept; a login beyond it ends the session
// idle the longest.
const maxSessions = 10000

// sessions are the web UI's logins, kept in memory: the cookie holds a
// random id, the server its last use and the hash of the token logged in
// with, which is checked again on every request (so revoking or expiring
// the token ends its sessions). Logging out deletes the id, so a
// copied cookie stops working at once; an id unused for longer than idle
// expires; a restart of the daemon ends every session. Ids are stored
// hashed, so the table does not hold usable cookies.
type sessions struct {
	mu   sync.Mutex
	idle time.Duration
	last map[[sha256.Size]byte]session
}

// session is one login: when it was last used and the hash of its token.
type session struct {
	at        time.Time
	tokenHash string
}

func newSessions(idle time.Duration) *sessions {
	if idle <= 0 {
		idle = DefaultSessionIdle
	}
	return &sessions{idle: idle, last: map[[sha256.Size]byte]session{}}
}

// start opens a session at now for the token whose hash is tokenHash and
// returns the cookie value naming it.
func (s *sessions) start(now time.Time, tokenHash string) string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported systems
	id := base64.RawURLEncoding.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.last) >= maxSessions {
		s.evict(now)
	}
	s.last[sha256.Sum256([]byte(id))] = session{at: now, tokenHash: tokenHash}
	return id
}

// evict drops the expired sessions, and when none had expired the one
// idle the longest. The caller holds mu.
func (s *sessions) evict(now time.Time) {
	var oldestKey [sha256.Size]byte
	var oldest time.Time
	dropped := false
	for k, se := range s.last {
		t := se.at
		if now.Sub(t) > s.idle {
			delete(s.last, k)
			dropped = true
		} else if oldest.IsZero() || t.Before(oldest) {
			oldestKey, oldest = k, t
		}
	}
	if !dropped && !oldest.IsZero() {
		delete(s.last, oldestKey)
	}
}

// touch reports whether id names a live session at now, marks it used and
// returns the hash of the session's token.
func (s *sessions) touch(id string, now time.Time) (tokenHash string, ok bool) {
	if id == "" || len(id) > 64 {
		return "", false
	}
	k := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	se, ok := s.last[k]
	if !ok {
		return "", false
	}
	if now.Sub(se.at) > s.idle {
		delete(s.last, k)
		return "", false
	}
	se.at = now
	s.last[k] = se
	return se.tokenHash, true
}

// end closes the session id names, if any.
func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.last, sha256.Sum256([]byte(id)))
}
