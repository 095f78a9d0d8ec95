# No work at all: the answer of one plan-required refusal, handed in as data
# (data.plangate.emit) and given back for every input. What writing a
# refusal's answer out of WASM and parsing it again costs by itself. A
# measuring stick, never a policy.
package plangate

decide := data.plangate.emit
