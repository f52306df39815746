package shellsession

import "time"

// expireLoop ends the sessions that went without a call for opts.Idle
// (STEERABLE_SESSION_IDLE_MS). Output does not count as activity: a
// command that prints forever would otherwise never expire. A call in
// progress keeps its session alive, however long it waits.
func (m *Manager) expireLoop() {
	defer m.janitor.Done()
	t := time.NewTicker(min(max(m.opts.Idle/10, 50*time.Millisecond), 30*time.Second))
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.expireIdle()
		}
	}
}

func (m *Manager) expireIdle() {
	m.mu.Lock()
	var idle []*session
	for _, s := range m.sessions {
		if s.idleFor() >= m.opts.Idle {
			idle = append(idle, s)
		}
	}
	m.mu.Unlock()
	for _, s := range idle {
		m.reap(s, "ended after "+m.opts.Idle.String()+" without a call (STEERABLE_SESSION_IDLE_MS)")
		s.kill()
		m.opts.Log.Info().Str("session", s.id).Dur("idle", m.opts.Idle).Msg("shell session expired")
	}
}
