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

default accept_upstream := false

accept_upstream if settings.in_force.acceptUpstream.value == true

# Only seats of the recorded chain are upstream: a claimed manager without a
# recorded delegation is nobody's upstream.
upstream_ids := {u.id | some u in upstream; u.id in trust.chain_ids} - {input.agent.id}

# Thread membership is judged for the message's author when that author may
# plan for this call, and for the acting agent otherwise.
in_threads(m) if {
	m.author in upstream_ids
	some u in upstream
	u.id == m.author
	speaks_in(u, m.thread)
}

in_threads(m) if {
	not m.author in upstream_ids
	speaks_in(input.agent, m.thread)
}

same_run(m) if trust.same_run(m)

age_ms(m) := input.now - m.at

# A message posted after fresh_after is fresh (the arithmetic is done once per decision).
fresh_after := input.now - (settings.in_force.windowMin.value * 60000)

fresh(m) if {
	m.at <= input.now
	m.at > fresh_after
}

# The four conditions, one predicate each, for the explanation (`failed`,
# one reason per condition that fails); the decision checks them at once, in
# one pass (`eligible`), and a property test holds the two to the same
# answer. They must hold positively: a message without a kind is not a plan,
# and one without an authorKind is not written as an agent.
is_plan(m) if m.kind == "plan"

by_agent(m) if m.authorKind == "agent"

by_acting_agent(m) if m.author == input.agent.id

by_upstream(m) if m.author in upstream_ids

# timely(m): a message not from after the decision is fresh or of the same run.
timely(m) if {
	m.at > fresh_after
} else := same_run(m)

failed("not_plan", m) if not is_plan(m)

failed("human_author", m) if not by_agent(m)

failed("other_author", m) if {
	by_agent(m)
	not by_acting_agent(m)
	not by_upstream(m)
}

failed("upstream_not_accepted", m) if {
	by_agent(m)
	by_upstream(m)
	not accept_upstream
}

failed("wrong_thread", m) if not in_threads(m)

failed("future", m) if m.at > input.now

failed("stale", m) if {
	m.at <= input.now
	not timely(m)
}

all_reasons := ["not_plan", "human_author", "other_author", "upstream_not_accepted", "wrong_thread", "future", "stale"]

reasons(m) := [r | some r in all_reasons; failed(r, m)]

same_run_flag(m) if same_run(m)

else := false

# candidates lists every message considered, in input order, with why it did
# or did not count (for explanations).
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

# eligible are the plans by a seat that may plan for this call, in a thread
# that seat speaks in, not from after the decision: the four conditions but
# freshness, checked at once, in one pass over the messages.
eligible := [m |
	some m in input.messages
	m.kind == "plan"
	m.authorKind == "agent"
	planned_where_it_may(m)
	m.at <= input.now
]

# planned_where_it_may(m): m's author may plan for this call (the acting
# agent, or with acceptUpstream a seat up its recorded chain) and speaks in
# m's thread: in_threads(m) for such an author, without working out the
# upstream seats for the acting agent's own plans.
planned_where_it_may(m) if {
	m.author == input.agent.id
	speaks_in(input.agent, m.thread)
}

planned_where_it_may(m) if {
	accept_upstream
	m.author in upstream_ids
	some u in upstream
	u.id == m.author
	speaks_in(u, m.thread)
}

# speaks_in(seat, thread): the seat speaks in the thread: its own, its crews'
# (all the way up) and the org's. A seat without a string id speaks in none.
speaks_in(seat, "org") if is_string(seat.id)

speaks_in(seat, thread) if thread == concat(":", ["agent", seat.id])

speaks_in(seat, thread) if {
	is_string(seat.id)
	startswith(thread, "crew:")
	substring(thread, 5, -1) in object.get(seat, "crews", [])
}

# counting lists the messages that count as a plan for this call: the
# eligible plans that are fresh, then those of the call's open run.
counting := array.concat(
	[m | some m in eligible; m.at > fresh_after],
	[m | some m in eligible; m.at <= fresh_after; same_run(m)],
)

# stale_only lists plans that fail on freshness alone.
stale_only := [m | some m in eligible; m.at <= fresh_after; not same_run(m)]

via(m) := "fresh" if fresh(m)

else := "same_run"

# plan is the newest message that counts, if any.
plan := p if {
	count(counting) > 0
	newest := max([m.at | some m in counting])
	m := [x | some x in counting; x.at == newest][0]
	p := object.union(m, {"via": via(m)})
}
