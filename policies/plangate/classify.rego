# METADATA
# title: Tool classification
# description: |
#   A tool's class comes from the rules: an exact name first, then the most
#   specific matching pattern, then the tool's MCP annotations (advisory:
#   destructiveHint → effect, readOnlyHint → read), then the rules' default
#   class (effect unless the rules say otherwise).
package plangate.classify

# Ties between equally specific patterns go to the stricter class.
rank := {"say": 0, "read": 1, "effect": 2, "spend": 3}

default tools := {}

tools := data.plangate.rules.tools

default_class := object.get(tools, "default", "effect")

# specificity counts a pattern's literal characters: "github.get_*" beats "github.*".
specificity(pattern) := count(replace(replace(pattern, "*", ""), "?", ""))

# `*` matches any run of characters, dots included; `?` exactly one. The
# glob.match under the WASM capabilities takes no null "no delimiter" form,
# so the delimiter is a space, which tool names cannot contain.
no_delimiter := [" "]

# Only `*` and `?` are special. A pattern with any character a tool name
# cannot hold (glob classes, braces, escapes) never matches; the rules schema
# rejects such patterns, this keeps a hand-made data document honest too.
well_formed(pattern) if regex.match(`^[A-Za-z0-9_.:/@*?-]+$`, pattern)

# literal_prefix is the text before a pattern's first wildcard. Every match
# starts with it, so comparing it first spares glob.match (which compiles the
# pattern on each call) for patterns that cannot match.
literal_prefix(pattern) := split(split(pattern, "*")[0], "?")[0]

matching(tool) := [p |
	some p in object.get(tools, "patterns", [])
	startswith(tool, literal_prefix(p.pattern))
	well_formed(p.pattern)
	glob.match(p.pattern, no_delimiter, tool)
]

best_pattern_class(tool) := class if {
	found := matching(tool)
	count(found) > 0
	top := max({specificity(p.pattern) | some p in found})
	tied := {p.class | some p in found; specificity(p.pattern) == top}
	strictest := max({rank[c] | some c in tied})
	some class in tied
	rank[class] == strictest
}

# class_of returns the class of a tool name.
class_of(tool) := class if {
	class := tools.exact[tool]
} else := class if {
	class := best_pattern_class(tool)
} else := class if {
	class := annotation_class(tool)
} else := default_class

# annotation_class reads the hints the upstream MCP server gave the tool of
# the call being decided, where no rule names it. Hints are advisory: a
# destructive hint wins over a contradicting read-only one, and a tool
# without either falls to the default class.
annotation_class(tool) := "effect" if {
	tool == input.call.tool
	input.call.annotations.destructiveHint == true
} else := "read" if {
	tool == input.call.tool
	input.call.annotations.readOnlyHint == true
}
