use fsm_runtime::fsm;

fsm! {
    machine Router {
        context Agent;
        action decided(Decision), finished(ToolResult);
        guard wants_tool(Decision);
        initial state route { on decided [wants_tool] -> calling; }
        state calling { on finished [wants_tool] -> route; }
    }
}

fn main() {}
