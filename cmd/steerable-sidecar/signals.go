package main

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signals catches SIGTERM and SIGINT for a command and calls its handler.
// SIGPIPE is caught too, so a write to a closed stdout returns EPIPE (and
// the server shuts down) instead of killing the process before it can stop
// its children, and a write to a closed stderr only loses the line.
//
// serve installs them in the background from its first line: the first
// signal.Notify starts an OS thread and waits for it once per signal,
// which then overlaps boot instead of delaying the ready marker. deliver waits for the installation, so once the marker is out a
// signal always reaches the server. A SIGTERM or SIGINT that comes before
// deliver gets the default action, re-raised: a boot stuck on a slow
// plugin still dies at once.
type signals struct {
	installed chan struct{} // closed once Notify has returned
	term      chan os.Signal
	pipe      chan os.Signal
	done      chan struct{}

	mu sync.Mutex
	fn func() // nil until deliver
}

// catchSignals starts installing the handlers.
func catchSignals() *signals {
	s := &signals{installed: make(chan struct{}), term: make(chan os.Signal, 1), pipe: make(chan os.Signal, 1), done: make(chan struct{})}
	go func() {
		signal.Notify(s.term, syscall.SIGTERM, syscall.SIGINT)
		signal.Notify(s.pipe, syscall.SIGPIPE)
		close(s.installed)
		s.loop()
	}()
	return s
}

// onSignals calls fn on SIGTERM or SIGINT from now on; stop ends that.
func onSignals(fn func()) (stop func()) {
	s := catchSignals()
	s.deliver(fn)
	return s.stop
}

func (s *signals) loop() {
	for {
		select {
		case sig := <-s.term:
			s.mu.Lock()
			fn := s.fn
			s.mu.Unlock()
			if fn == nil {
				raiseDefault(sig)
				continue
			}
			fn()
		case <-s.pipe:
		case <-s.done:
			return
		}
	}
}

// deliver makes fn the handler, once the signals are caught.
func (s *signals) deliver(fn func()) {
	<-s.installed
	s.mu.Lock()
	s.fn = fn
	s.mu.Unlock()
}

// stop releases SIGTERM and SIGINT. SIGPIPE stays caught until the process
// exits: the last log lines and their flush come after this, and with a
// host that closed stderr an uncaught SIGPIPE kills the process (exit by
// signal).
func (s *signals) stop() {
	<-s.installed
	signal.Stop(s.term)
	close(s.done)
}

// raiseDefault gives sig its default action: the process ends as if it
// had never been caught.
func raiseDefault(sig os.Signal) {
	signal.Reset(sig)
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = p.Signal(sig)
	}
	if err != nil { // no way to re-raise it (Windows): end as a kill would
		os.Exit(exitUsage)
	}
}
