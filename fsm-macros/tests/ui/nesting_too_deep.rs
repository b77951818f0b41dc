use fsm_runtime::fsm;

fsm! {
    machine Deep {
        initial state l1 { initial state l2 { initial state l3 { initial state l4 {
        initial state l5 { initial state l6 { initial state l7 { initial state l8 {
        initial state l9 { initial state l10 { initial state l11 { initial state l12 {
        initial state l13 { initial state l14 { initial state l15 { initial state l16 {
        initial state l17 { initial state l18 { initial state l19 { initial state l20 {
        initial state l21 { initial state l22 { initial state l23 { initial state l24 {
        initial state l25 { initial state l26 { initial state l27 { initial state l28 {
        initial state l29 { initial state l30 { initial state l31 { initial state l32 {
            initial state l33 { on go -> l1; }
        }}}} }}}} }}}} }}}} }}}} }}}} }}}} }}}}
    }
}

fn main() {}
