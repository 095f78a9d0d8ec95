# METADATA
# title: Pinned MCP tools
# description: |
#   What an upstream MCP tool is, as far as the gate relies on it, is what
#   the operator reviewed: a pin is the digest of the tool's definition
#   (name, description, input and output schema, annotations) under
#   data.plangate.rules.mcp.pins[upstream][tool]. The MCP gateway asserts
#   the call's input.call.mcp (the upstream, the tool's name there, its
#   digest now); nothing else can. A pinned tool whose definition no longer
#   matches is refused with tool_changed:<tool> until the operator pins it
#   again; an unpinned tool is decided as any other. An upstream's own
#   annotations classify its tools only where the rules trust that upstream
#   for it (data.plangate.rules.mcp.trustAnnotations).
package plangate.pins

pin := data.plangate.rules.mcp.pins[input.call.mcp.upstream][input.call.mcp.tool]

# state: "pinned" (the definition matches its pin), "changed" (it does not),
# or "unpinned" (no pin, or a call that did not come through the gateway).
default state := "unpinned"

state := "pinned" if pin == input.call.mcp.digest

state := "changed" if refused

default refused := false

refused if pin != input.call.mcp.digest

code := concat(":", ["tool_changed", input.call.tool])

message := concat("", [
	code, " - the definition of ", input.call.tool, " (", input.call.mcp.tool, " on the upstream ",
	input.call.mcp.upstream, ") is not the one the operator pinned: its description, schemas or ",
	"annotations changed since it was reviewed. It stays closed until an operator reviews the change ",
	"and pins it again (plangate pin). Retrying will not help; tell the operator, and use other tools meanwhile.",
])

# The verdict names the pin it compared with, when there is one (the
# refusal's audit event and an explanation show it beside the digest seen).
verdict := object.union({"state": state, "refused": refused}, pinned)

default pinned := {}

pinned := {"pinned": pin}

# annotations_trusted: the rules let the call's upstream classify its own
# tools by their annotations. Not by default: an upstream's word that its
# tool only reads is not a fact it is entitled to assert.
default annotations_trusted := false

# The gateway's own hints for the protocol's entry points (resources/read,
# prompts/get, ...) are plangate's word, not an upstream's.
annotations_trusted if input.call.mcp.own == true

annotations_trusted if {
	some name in data.plangate.rules.mcp.trustAnnotations
	name == input.call.mcp.upstream
}
