/**
 * @file The .fsm state-machine language (fsmc), for tree-sitter.
 * @license MIT OR Apache-2.0
 *
 * The language is defined by grammar/src/fsm.pest in the fsmc repository;
 * this grammar follows it rule for rule, and editors/test.sh holds the two
 * (and the TextMate grammar) to the same language on every fixture under
 * tests/fixtures/ok.
 *
 * Keywords are contextual: `exit`, `output` or `state` are names wherever a
 * name is expected. tree-sitter gives that for free: with `word` set, a
 * keyword is only lexed as one where the parser can accept it, and as an
 * identifier elsewhere.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)));

// What may follow a transition's action, a timer's delay, or `done` and `always`, in this order.
const clauses = ($) => [
  optional(field('guard', $.guard)),
  optional($.priority),
  optional($.target),
  optional($.effects),
  optional($.emit),
];

module.exports = grammar({
  name: 'fsm',

  word: ($) => $.identifier,

  // fsm.pest's WHITESPACE (space, tab, CR, LF and the byte-order mark) and
  // comments, which may stand between any two tokens.
  extras: ($) => [/[ \t\r\n\uFEFF]/, $.line_comment, $.doc_comment],

  rules: {
    source_file: ($) => repeat($.machine),

    // Exactly three slashes make a doc comment, which documents the item
    // below; two, or four and more, an ordinary comment (as in Rust). The two
    // regexes never match the same text, so the longest match decides.
    doc_comment: (_) => token(seq('///', optional(/[^\/\n][^\n]*/))),
    line_comment: (_) => token(choice(seq('//', optional(/[^\/\n][^\n]*/)), seq('////', /[^\n]*/))),

    machine: ($) =>
      seq(repeat($.attribute), 'machine', field('name', $.identifier), field('body', $.machine_body)),

    machine_body: ($) =>
      seq(
        '{',
        repeat(
          choice(
            $.context_declaration,
            $.action_declaration,
            $.guard_declaration,
            $.effect_declaration,
            $.output_declaration,
            $.delay_declaration,
            $.any_block,
            $.property,
            $.state,
          ),
        ),
        '}',
      ),

    // #[allow(dead-end, unused-declaration,)]
    attribute: ($) =>
      seq('#', '[', 'allow', '(', optional(seq(commaSep1($.lint_code), optional(','))), ')', ']'),
    lint_code: (_) => /[A-Za-z][A-Za-z0-9_-]*/,

    // context TYPE;
    context_declaration: ($) => seq('context', field('type', $._type), ';'),

    // Actions, guards and effects may carry a payload type, each name its own.
    action_declaration: ($) => seq('action', commaSep1($.declared_name), ';'),
    guard_declaration: ($) => seq('guard', commaSep1($.declared_name), ';'),
    effect_declaration: ($) => seq('effect', commaSep1($.declared_name), ';'),
    output_declaration: ($) => seq('output', commaSep1(field('name', $.identifier)), ';'),
    delay_declaration: ($) => seq('delay', commaSep1(field('name', $.identifier)), ';'),
    declared_name: ($) => seq(field('name', $.identifier), optional(field('payload', $.payload))),
    payload: ($) => seq('(', $._type, ')'),

    // A Rust type: a path with generic arguments on its last segment, a tuple
    // or an array. No references or lifetimes: payloads and contexts are owned.
    _type: ($) => choice($.type_path, $.tuple_type, $.array_type),
    type_path: ($) =>
      seq(
        optional('::'),
        repeat(seq(field('module', $.identifier), '::')),
        field('name', $.identifier),
        optional(field('arguments', $.type_arguments)),
      ),
    type_arguments: ($) => seq('<', commaSep1($._type), optional(','), '>'),
    tuple_type: ($) => seq('(', optional(seq(commaSep1($._type), optional(','))), ')'),
    array_type: ($) => seq('[', $._type, ';', field('length', $.array_length), ']'),
    array_length: (_) => /[0-9]+/,

    // [#[allow(..)]] [initial] [terminal] [final] [parallel] state NAME (; | { ... })
    // `parallel` comes after the other modifiers, as in fsm.pest; it is a
    // `modifier` node too, as it is a modifier in fsmc's syntax tree.
    state: ($) =>
      seq(
        repeat($.attribute),
        repeat($.modifier),
        optional(alias('parallel', $.modifier)),
        'state',
        field('name', $.identifier),
        choice(';', field('body', $.state_body)),
      ),
    modifier: (_) => choice('initial', 'terminal', 'final'),
    // A state body may hold states: a composite state, or the regions of a
    // parallel state.
    state_body: ($) =>
      seq(
        '{',
        repeat(choice($.hook, $.timer, $.done_transition, $.always_transition, $.transition, $.state)),
        '}',
      ),

    // enter do EFFECT, ... emit OUTPUT, ...;
    hook: ($) =>
      seq(
        field('kind', choice('enter', 'exit')),
        choice(seq($.effects, optional($.emit)), $.emit),
        ';',
      ),

    any_block: ($) => seq('any', field('body', $.any_body)),
    any_body: ($) => seq('{', repeat($.transition), '}'),

    // on ACTION [GUARD] priority INT -> TARGET do EFFECT, ... emit OUTPUT, ...;
    transition: ($) => seq('on', field('action', $.identifier), ...clauses($), ';'),
    // after 30s ...; or after DELAY ...;
    timer: ($) => seq('after', field('delay', choice($.duration, $.identifier)), ...clauses($), ';'),
    // done [GUARD] priority INT -> TARGET ...;: when the state completes.
    done_transition: ($) => seq('done', ...clauses($), ';'),
    // always [GUARD] priority INT -> TARGET ...;: as soon as the guard holds.
    always_transition: ($) => seq('always', ...clauses($), ';'),

    // Lexically digits and a word; fsmc reads the unit (ms, s, m, h).
    duration: (_) => /[0-9]+[A-Za-z0-9_]*/,
    priority: ($) => seq('priority', field('value', $.integer)),
    integer: (_) => /-?[0-9]+/,
    // -> NAME, or -> NAME.history / NAME.deep_history (a composite's history).
    target: ($) =>
      seq(
        '->',
        field('state', $.identifier),
        optional(seq('.', field('history', $.history))),
      ),
    history: (_) => choice('history', 'deep_history'),
    effects: ($) => seq('do', commaSep1(field('effect', $.identifier))),
    emit: ($) => seq('emit', commaSep1(field('output', $.identifier))),

    guard: ($) => seq('[', $._guard_expression, ']'),
    // `in` is a keyword only before `(`: `[in]` names a guard `in`. The parser
    // tells the two apart by the token after it.
    _guard_expression: ($) =>
      choice(
        $.or_expression,
        $.and_expression,
        $.not_expression,
        $.parenthesized_expression,
        $.in_expression,
        $.identifier,
        alias('in', $.identifier),
      ),
    or_expression: ($) => prec.left(1, seq($._guard_expression, '||', $._guard_expression)),
    and_expression: ($) => prec.left(2, seq($._guard_expression, '&&', $._guard_expression)),
    not_expression: ($) => prec(3, seq('!', $._guard_expression)),
    parenthesized_expression: ($) => seq('(', $._guard_expression, ')'),
    // in(STATE): the state is active.
    in_expression: ($) => seq('in', '(', field('state', $.identifier), ')'),

    // never FORMULA; reachable FORMULA; recoverable FORMULA; escapable
    // FORMULA;, optionally named: property NAME: recoverable FORMULA;.
    // `fsmc verify` checks them.
    property: ($) =>
      choice(
        seq(
          optional(seq('property', field('name', $.identifier), ':')),
          field('kind', $.property_kind),
          field('formula', $._formula),
          ';',
        ),
        // property NAME: FORMULA leads to FORMULA assuming ACTIONS;
        seq(
          'property',
          field('name', $.identifier),
          ':',
          field('formula', $._formula),
          'leads',
          'to',
          field('target', $._formula),
          optional(seq('assuming', commaSep1(field('assuming', $.identifier)))),
          ';',
        ),
      ),
    property_kind: (_) => choice('never', 'reachable', 'recoverable', 'escapable'),
    // A guard expression over in(STATE) and `terminal` only.
    _formula: ($) =>
      choice(
        alias($.formula_or, $.or_expression),
        alias($.formula_and, $.and_expression),
        alias($.formula_not, $.not_expression),
        alias($.formula_parenthesized, $.parenthesized_expression),
        $.in_expression,
        $.terminal,
      ),
    formula_or: ($) => prec.left(1, seq($._formula, '||', $._formula)),
    formula_and: ($) => prec.left(2, seq($._formula, '&&', $._formula)),
    formula_not: ($) => prec(3, seq('!', $._formula)),
    formula_parenthesized: ($) => seq('(', $._formula, ')'),
    terminal: (_) => 'terminal',

    identifier: (_) => /[A-Za-z_][A-Za-z0-9_]*/,
  },
});
