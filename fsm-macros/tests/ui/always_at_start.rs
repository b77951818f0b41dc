use fsm_runtime::fsm;

fsm! {
    // always-at-start: creating a machine runs nothing and emits nothing, so no
    // state it starts in may have an `always` transition, its own or inherited,
    // and no composite it starts in may start done.
    machine Router {
        initial state route {
            always [needs_tool] -> tool;
            always -> answer;
        }
        state tool { on tool_done -> route; }
        terminal state answer;
    }

    machine Upload {
        initial state sending {
            done -> finished;
            initial final state sent;
        }
        terminal state finished;
    }
}

fn main() {}
