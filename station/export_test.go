package station

// CheckWith is Check with the machine's GPIO chips described by chips.
var CheckWith = check

// TerminalKeys is terminalKeys.
var TerminalKeys = terminalKeys
