package webui

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// This file is the confirmation step of the actions that cannot be taken
// back: Run now, Kill and Abort waiting. Their buttons are links to a GET
// of the action's URL, which asks; the page's form POSTs to the same URL,
// which acts. It works without JavaScript, and a stray click does nothing.

// confirmData is what the confirmation page shows.
type confirmData struct {
	Heading, Question, Detail string
	// Action is the URL the form POSTs to; Button its label and Class its
	// class; Back where Cancel leads.
	Action, Button, Class, Back string
}

func (s *server) confirm(w http.ResponseWriter, r *http.Request, title string, d confirmData) {
	s.render(w, r, http.StatusOK, "confirm", "", s.newPage(r, title, "jobs", d))
}

// confirmTrigger asks before GET /jobs/{name}/trigger's POST starts a run.
func (s *server) confirmTrigger(w http.ResponseWriter, r *http.Request) {
	j, err := s.cfg.Backend.Job(r.Context(), r.PathValue("name"))
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	d := confirmData{Heading: "Run " + j.Name + " now?", Question: fmt.Sprintf("This starts a manual run of %s now, outside its schedule.", j.Name),
		Action: jobPath(j.Name) + "/trigger", Button: "Run now", Class: "trigger", Back: jobPath(j.Name)}
	switch {
	case j.FannedOut():
		d.Question = fmt.Sprintf("This starts a manual run of %s now on every node matching %s, outside its schedule.", j.Name, j.Nodes)
	case len(j.Active) > 0:
		d.Detail = fmt.Sprintf("It has %d active run(s); its concurrency policy (%s) decides whether the new one waits, is skipped or replaces them.", len(j.Active), j.ConcurrencyPolicy)
	}
	s.confirm(w, r, "Run "+j.Name+" now", d)
}

// confirmKill asks before GET /runs/{id}/kill's POST stops a run.
func (s *server) confirmKill(w http.ResponseWriter, r *http.Request) {
	d, ok := s.loadRun(w, r)
	if !ok {
		return
	}
	run := d.Run
	back := "/runs/" + strconv.FormatInt(run.ID, 10)
	if !run.Active() {
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	c := confirmData{Heading: fmt.Sprintf("Kill run #%d of %s?", run.ID, run.Job), Action: back + "/kill", Button: "Kill", Class: "kill", Back: back}
	if run.State == RunRunning {
		c.Question = fmt.Sprintf("Its process group gets SIGTERM, then SIGKILL after the grace period; the run ends as killed. It has been running for %s", duration(s.cfg.Clock.Now().Sub(run.StartedAt)))
		if run.Node != "" {
			c.Question += " on " + run.Node
		}
		c.Question += "."
	} else {
		c.Question = "It has not started; killing it ends it as killed without running it."
	}
	s.confirm(w, r, "Kill run "+strconv.FormatInt(run.ID, 10), c)
}

// confirmAbort asks before GET /jobs/{name}/wave/abort's POST skips the
// waiting nodes of a wave.
func (s *server) confirmAbort(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	wv, err := s.cfg.Backend.Wave(r.Context(), name)
	if err != nil {
		s.backendError(w, r, err)
		return
	}
	d := confirmData{Heading: "Abort the waiting nodes of " + name + "?",
		Question: fmt.Sprintf("The %d node(s) still waiting for their turn at %s are skipped; the %d running go on.", wv.Waiting, wv.Instant.UTC().Format(time.RFC3339), wv.Running),
		Action:   jobPath(name) + "/wave/abort", Button: "Abort waiting", Class: "wave-abort", Back: jobPath(name) + "#fleet-h"}
	s.confirm(w, r, "Abort waves of "+name, d)
}
