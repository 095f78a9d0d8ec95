# METADATA
# title: Shared test fixtures
# description: |
#   A small org for the policy tests. Crews: news > desk > desk-night,
#   news > sports, and mgmt on its own. 0xWORKER sits in desk; 0xMGR, who
#   delegates to it, sits in mgmt.
package plangate.fixtures_test

now := 1700000000000

minute := 60000

worker := {"id": "0xWORKER", "known": true, "crews": ["desk", "news"]}

manager := {"id": "0xMGR", "known": true, "crews": ["mgmt"]}

merge := "github.merge_pull_request"

spend := "billing.propose_spend"

tools := {
	"default": "effect",
	"exact": {
		"github.get_pull_request": "read",
		"thread.post": "say",
		"github.merge_pull_request": "effect",
		"billing.propose_spend": "spend",
	},
	"patterns": [],
}

# rules_with builds a rules document from plan-required rules at each scope.
rules_with(workspace, crews, agents) := {
	"planRequired": {"workspace": workspace, "crews": crews, "agents": agents},
	"tools": tools,
}

# workspace_rules: one workspace rule with the given mode, window 30.
workspace_rules(mode) := rules_with(
	{"mode": mode, "windowMin": 30, "acceptUpstream": false, "source": "rules/workspace.yaml:2:3"},
	{}, {},
)

side_effects := workspace_rules("side_effects")

# upstream_rules: side_effects with acceptUpstream on for the worker, whose
# window (10) is narrower than the manager's (120).
upstream_rules := rules_with(
	{"mode": "side_effects", "windowMin": 30, "acceptUpstream": false, "source": "rules/workspace.yaml:2:3"},
	{},
	{
		"0xWORKER": {"mode": "side_effects", "windowMin": 10, "acceptUpstream": true, "source": "rules/agents.yaml:4:5"},
		"0xMGR": {"mode": "side_effects", "windowMin": 120, "acceptUpstream": true, "source": "rules/agents.yaml:9:5"},
	},
)

# plan is a fresh-looking plan by the worker in its own thread, posted `ago` ms before now.
plan(id, ago) := {
	"id": id,
	"thread": "agent:0xWORKER",
	"author": "0xWORKER",
	"authorKind": "agent",
	"kind": "plan",
	"at": now - ago,
}

# plan_with is plan(id, ago) with some fields replaced.
plan_with(id, ago, fields) := object.union(plan(id, ago), fields)

# call is the input for a call by the worker, not delegated, without a run id.
call(tool, messages) := {
	"now": now,
	"call": {"agent": "0xWORKER", "tool": tool, "delegatedBy": []},
	"agent": worker,
	"upstream": [],
	"messages": messages,
}

hour := 60 * minute

# worker_run is the worker's run `id` as the host recorded it: started 23
# hours ago, open, with the default bound (it would expire in an hour).
worker_run(id) := {
	"id": id, "seat": "0xWORKER", "delegationId": null,
	"startedAt": now - (23 * hour), "expiresAt": now + hour, "endedAt": null,
}

# run_call is call() tagged with a run id (any JSON value, to test odd ones),
# with the worker's open run of that id on record.
run_call(tool, run, messages) := object.union(call(tool, messages), {
	"call": {"agent": "0xWORKER", "tool": tool, "delegatedBy": [], "runId": run},
	"run": worker_run(run),
})

# delegation is a live recorded delegation from manager to worker, for any run.
delegation(id, manager_id, worker_id) := {
	"id": id, "manager": manager_id, "worker": worker_id, "runId": null,
	"createdAt": now - hour, "expiresAt": null, "revokedAt": null,
}

# delegated is call() delegated by the manager, the delegation on record.
delegated(tool, messages) := object.union(call(tool, messages), {
	"call": {"agent": "0xWORKER", "tool": tool, "delegatedBy": ["0xMGR"]},
	"upstream": [manager],
	"delegations": [delegation("d1", "0xMGR", "0xWORKER")],
})
