# METADATA
# title: What counts as a plan
# description: |
#   A message counts as a plan for a call only when all four hold: its kind is
#   `plan`; its author is the acting agent (or, with acceptUpstream, an agent up
#   the call's recorded delegation chain), writing as an agent; it is in a
#   thread that author speaks in; and it is fresh (younger than the window) or
#   tagged with the call's run while that run is open and posted since it
#   started (see plangate.trust). A message from after the decision time never
#   counts.
package plangate.plans

import data.plangate.settings
import data.plangate.trust

default messages := []

messages := input.messages

default upstream := []

upstream := input.upstream

effective := settings.effective(input.agent)

window_ms := effective.windowMin.value * 60000

default accept_upstream := false

accept_upstream if effective.acceptUpstream.value == true

# Only seats of the recorded chain are upstream: a claimed manager without a
# recorded delegation is nobody's upstream.
upstream_ids := {u.id | some u in upstream; u.id in trust.chain_ids} - {input.agent.id}

# The threads a seat speaks in: its own, its crews' (all the way up) and the org's.
threads_of(seat) := {concat(":", ["agent", seat.id]), "org"} | {concat(":", ["crew", crew]) | some crew in object.get(seat, "crews", [])}

# Thread membership is judged for the message's author when that author may
# plan for this call, and for the acting agent otherwise.
in_threads(m) if {
	m.author in upstream_ids
	some u in upstream
	u.id == m.author
	m.thread in threads_of(u)
}

in_threads(m) if {
	not m.author in upstream_ids
	m.thread in threads_of(input.agent)
}

same_run(m) if trust.same_run(m)

age_ms(m) := input.now - m.at

fresh(m) if {
	m.at <= input.now
	age_ms(m) < window_ms
}

# The conditions must hold positively: a message without a kind is not a plan,
# and one without an authorKind is not written as an agent.
failed("not_plan", m) if not m.kind == "plan"

failed("human_author", m) if not m.authorKind == "agent"

failed("other_author", m) if {
	m.authorKind == "agent"
	m.author != input.agent.id
	not m.author in upstream_ids
}

failed("upstream_not_accepted", m) if {
	m.authorKind == "agent"
	m.author in upstream_ids
	not accept_upstream
}

failed("wrong_thread", m) if not in_threads(m)

failed("future", m) if m.at > input.now

failed("stale", m) if {
	m.at <= input.now
	not fresh(m)
	not same_run(m)
}

all_reasons := ["not_plan", "human_author", "other_author", "upstream_not_accepted", "wrong_thread", "future", "stale"]

reasons(m) := [r | some r in all_reasons; failed(r, m)]

same_run_flag(m) if same_run(m)

else := false

# candidates lists every message considered, in input order, with why it did
# or did not count.
candidates := [c |
	some m in messages
	why := reasons(m)
	c := object.union(m, {
		"counts": count(why) == 0,
		"reasons": why,
		"ageMs": age_ms(m),
		"sameRun": same_run_flag(m),
	})
]

counting := [c | some c in candidates; c.counts]

# stale_only lists plans that fail on freshness alone.
stale_only := [c | some c in candidates; c.reasons == ["stale"]]

via(c) := "fresh" if fresh(c)

else := "same_run"

# plan is the newest message that counts, if any.
plan := p if {
	count(counting) > 0
	newest := max({c.at | some c in counting})
	c := [x | some x in counting; x.at == newest][0]
	p := object.union(object.remove(c, ["counts", "reasons", "ageMs", "sameRun"]), {"via": via(c)})
}
