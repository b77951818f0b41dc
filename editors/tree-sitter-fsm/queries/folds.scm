; Fold machine bodies, state bodies (parallel states' too) and `any` blocks.
[
  (machine_body)
  (state_body)
  (any_body)
] @fold
