// Malformed options of `fsm!`, each reported on the token at fault.
use fsm_runtime::fsm;

mod wrong_value {
    super::fsm! {
        module = super;
        machine A { initial state a; }
    }
}

mod misspelt {
    super::fsm! {
        modul = self;
        machine B { initial state b; }
    }
}

mod comma_before_the_definition {
    super::fsm! {
        module = self,
        machine C { initial state c; }
    }
}

mod file_form {
    super::fsm!(file = "machines/door.fsm", module = crate::door);
}

mod no_definition {
    super::fsm!(module = self);
}

fn main() {}
