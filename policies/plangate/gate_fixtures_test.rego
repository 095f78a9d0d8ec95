# METADATA
# title: Fixtures for the planning gate and the read guard
# description: |
#   The org of plangate.fixtures_test (0xWORKER in desk < news; 0xMGR in
#   mgmt) with planning-gate settings: defaults (gate off, a small whitelist,
#   a 1000-byte read ceiling), profiles, and picks by crews and agents.
package plangate.gate_fixtures_test

import data.plangate.fixtures_test as fx

minute := fx.minute

read_file := "fs.read_file"

channel := "review.send"

tools := object.union(fx.tools, {"exact": {
	"fs.read_file": "read",
	"fs.cat": "read",
	"fs.read_many": "read",
	"fs.write_file": "effect",
	"review.send": "say",
	"github.list_issues": "read",
}})

defaults := {
	"enabled": false,
	"whitelist": ["github.get_*", "fs.read_file"],
	"reviewerChannel": channel,
	"readGuardMaxBytes": 1000,
	"source": "rules/planning.yaml:2:3",
}

planning_gate := {
	"defaults": defaults,
	"profiles": {
		"strict": {"enabled": true, "readGuardMaxBytes": 100, "source": "rules/planning.yaml:9:5"},
		"open": {"enabled": true, "whitelist": ["*"], "source": "rules/planning.yaml:11:5"},
		"quiet": {"enabled": false, "whitelist": [], "readGuardMaxBytes": 0, "source": "rules/planning.yaml:13:5"},
	},
	"crews": {"desk": {"profile": "strict", "source": "rules/planning.yaml:16:5"}},
	"agents": {"0xMGR": {"profile": "quiet", "source": "rules/planning.yaml:18:5"}},
}

read_guard := {"tools": {
	"fs.read_file": {"path": "path", "range": ["offset", "limit"], "source": "rules/planning.yaml:21:5"},
	"fs.cat": {"path": "file", "source": "rules/planning.yaml:22:5"},
	"fs.write_file": {"path": "path", "range": [], "source": "rules/planning.yaml:23:5"},
	"fs.read_many": {"paths": "paths", "source": "rules/planning.yaml:24:5"},
}}

# rules: side_effects everywhere, with the planning gate and the read guard.
rules := object.union(fx.side_effects, {"tools": tools, "planningGate": planning_gate, "readGuard": read_guard, "mcp": mcp})

# mcp: the filesystem upstream's annotations are trusted; one of its tools is pinned.
mcp := {"trustAnnotations": ["fs"], "pins": {"fs": {"write_file": "sha256:aa"}}}

# rules_off: the same without any planning-gate settings (everything built in).
rules_off := object.union(fx.side_effects, {"tools": tools, "readGuard": read_guard})

hold := {
	"id": "7",
	"kind": "on_demand",
	"task": "Refactor the auth middleware",
	"placedBy": "ops-alice",
	"placedAt": fx.now - minute,
	"plans": 0,
	"pushBacks": 0,
}

# call is a call by the worker with arguments, and extra top-level input.
call(tool, args, extra) := object.union(object.union(fx.call(tool, []), {"call": {"args": args}}), extra)

held(tool, args) := call(tool, args, {"hold": hold})

# file is the host's fact for a regular file of `size` bytes at `path`.
file(path, size) := {"files": {path: {"path": path, "kind": "file", "size": size}}}

# fact is the host's fact of another kind (missing, other, outside) at `path`.
fact(path, kind) := {"files": {path: {"path": path, "kind": kind}}}
