; Fold machine bodies, state bodies and `any` blocks.
[
  (machine_body)
  (state_body)
  (any_body)
] @fold
