; Highlights for the .fsm language. Capture names follow Neovim's (which
; Helix and Zed read too, falling back on the part before the last dot).
; No two patterns capture the same node, so the result does not depend on
; whether an editor lets the first or the last match win.

; Comments
(line_comment) @comment
(doc_comment) @comment.documentation

; Keywords: contextual, so only the keyword tokens are captured, never a
; name that happens to be spelled like one.
[
  "machine"
  "state"
  "context"
  "action"
  "guard"
  "effect"
  "output"
  "delay"
] @keyword.type

(modifier) @keyword.modifier

[
  "on"
  "after"
  "any"
  "enter"
  "exit"
  "do"
  "emit"
  "priority"
  "done"
  "always"
] @keyword

; Properties `fsmc verify` checks
[
  "property"
  "never"
  "reachable"
  "recoverable"
  "escapable"
  "leads"
  "to"
  "assuming"
] @keyword

(property assuming: (identifier) @function)

(property name: (identifier) @label)
(terminal) @constant.builtin

; `in(state)` in a guard; a guard named `in` is an identifier.
"in" @keyword.operator

; Names, each kind its own colour
(machine name: (identifier) @type.definition)

(state name: (identifier) @constant)
(target state: (identifier) @constant)
(in_expression state: (identifier) @constant)

(action_declaration (declared_name name: (identifier) @function))
(transition action: (identifier) @function)

(guard_declaration (declared_name name: (identifier) @variable.parameter))
(guard (identifier) @variable.parameter)
(not_expression (identifier) @variable.parameter)
(and_expression (identifier) @variable.parameter)
(or_expression (identifier) @variable.parameter)
(parenthesized_expression (identifier) @variable.parameter)

(effect_declaration (declared_name name: (identifier) @function.method))
(effects effect: (identifier) @function.method)

(output_declaration name: (identifier) @constructor)
(emit output: (identifier) @constructor)

(delay_declaration name: (identifier) @property)
(timer delay: (identifier) @property)

; Rust types of payloads and contexts
((type_path name: (identifier) @type.builtin)
  (#match? @type.builtin "^(bool|char|str|u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize|f32|f64)$"))
((type_path name: (identifier) @type)
  (#not-match? @type "^(bool|char|str|u8|u16|u32|u64|u128|usize|i8|i16|i32|i64|i128|isize|f32|f64)$"))
(type_path module: (identifier) @module)

; Literals
(duration) @number
(integer) @number
(array_length) @number

; Attributes
(attribute "allow" @attribute.builtin)
(attribute ["#" "[" "]"] @punctuation.special)
(lint_code) @constant.builtin

; Operators and punctuation
[
  "->"
  "!"
  "&&"
  "||"
] @operator

"::" @punctuation.delimiter

[
  ","
  ";"
] @punctuation.delimiter

(machine_body ["{" "}"] @punctuation.bracket)
(state_body ["{" "}"] @punctuation.bracket)
(any_body ["{" "}"] @punctuation.bracket)
(guard ["[" "]"] @punctuation.bracket)
(array_type ["[" "]"] @punctuation.bracket)
(attribute ["(" ")"] @punctuation.bracket)
(payload ["(" ")"] @punctuation.bracket)
(tuple_type ["(" ")"] @punctuation.bracket)
(parenthesized_expression ["(" ")"] @punctuation.bracket)
(in_expression ["(" ")"] @punctuation.bracket)
(type_arguments ["<" ">"] @punctuation.bracket)

; -> connected.history: the history of a composite state.
(history) @keyword
(target "." @punctuation.delimiter)
