" Vim syntax file for the .fsm language of fsmc (grammar/src/fsm.pest).
" A fallback for Vim, and for Neovim without the tree-sitter grammar in
" editors/tree-sitter-fsm, which is more exact. Keywords are contextual in
" the language; here a keyword is one only where an item or clause starts,
" and the names after it get the colour of their kind.

if exists('b:current_syntax')
  finish
endif

syn case match

" Comments: `///` documents the item that follows.
syn keyword fsmTodo contained TODO FIXME XXX NOTE
syn match fsmComment "//.*$" contains=fsmTodo,@Spell
syn match fsmDocComment "///.*$" contains=fsmTodo,@Spell

" #[allow(code, ...)]
syn region fsmAttribute matchgroup=fsmAttributeDelim start="#\[" end="\]" contains=fsmAllow,fsmLintCode keepend
syn keyword fsmAllow contained allow
syn match fsmLintCode contained "\<\a[[:alnum:]_-]*\>" contains=fsmAllow

" machine Name { ... }
syn match fsmMachineKeyword "\<machine\>\ze\s\+\h" nextgroup=fsmMachineName skipwhite
syn match fsmMachineName contained "\h\w*"

" [initial|terminal|final] [parallel] state name
syn match fsmModifier "\<\(initial\|terminal\|final\)\>\ze\s\+\(initial\|terminal\|final\|parallel\|state\)\>"
syn match fsmModifier "\<parallel\>\ze\s\+state\>"
syn match fsmStateKeyword "\<state\>\ze\s\+\h" nextgroup=fsmStateName skipwhite
syn match fsmStateName contained "\h\w*" nextgroup=fsmHistory
" -> connected.history, -> connected.deep_history
syn match fsmHistory contained "\.\(deep_\)\=history\>"

" any { ... }, enter ..., exit ...
syn match fsmKeyword "\<any\>\ze\s*{"
syn match fsmKeyword "\<\(enter\|exit\)\>\ze\s\+\(do\|emit\)\>"

" context path::Type;
syn match fsmContextKeyword "\<context\>\ze\s\+\h" nextgroup=fsmTypePath skipwhite
syn match fsmTypePath contained "\h\w*\(\s*::\s*\h\w*\)*\(<[^;]*>\)\=" contains=fsmPrimitive,fsmPathSep
syn match fsmPathSep contained "::"
syn keyword fsmPrimitive contained bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64

" Declarations: `action a(T), b;` and the same for guard, effect, output and delay.
" Names are coloured by kind; payload types in parentheses as types.
syn region fsmPayload contained matchgroup=fsmParen start="(" end=")" contains=fsmPayload,fsmPayloadType,fsmPathSep
syn match fsmPayloadType contained "\h\w*" contains=fsmPrimitive
syn region fsmActionDecl matchgroup=fsmDeclKeyword start="^\s*\zsaction\>\ze\s\+\h" matchgroup=NONE end=";" contains=fsmPayload,fsmActionName,fsmComment
syn region fsmGuardDecl matchgroup=fsmDeclKeyword start="^\s*\zsguard\>\ze\s\+\h" matchgroup=NONE end=";" contains=fsmPayload,fsmGuardName,fsmComment
syn region fsmEffectDecl matchgroup=fsmDeclKeyword start="^\s*\zseffect\>\ze\s\+\h" matchgroup=NONE end=";" contains=fsmPayload,fsmEffectName,fsmComment
syn region fsmOutputDecl matchgroup=fsmDeclKeyword start="^\s*\zsoutput\>\ze\s\+\h" matchgroup=NONE end=";" contains=fsmPayload,fsmOutputName,fsmComment
syn region fsmDelayDecl matchgroup=fsmDeclKeyword start="^\s*\zsdelay\>\ze\s\+\h" matchgroup=NONE end=";" contains=fsmDelayName,fsmComment

" Transitions: on action [guard] priority N -> target do effects emit outputs;
syn match fsmOn "\<on\>\ze\s\+\h" nextgroup=fsmActionName skipwhite
syn match fsmActionName contained "\h\w*"
syn region fsmGuard matchgroup=fsmBracket start="\[" end="\]" contains=fsmGuardName,fsmGuardOperator,fsmGuard,fsmIn,fsmInState
syn match fsmGuardName contained "\h\w*"
syn match fsmGuardOperator contained "&&\|||\|!\|[()]"
" in(state) in a guard; `in` without `(` after it names a guard. Defined after
" fsmGuardName, so that they win where both match.
syn match fsmIn contained "\<in\>\ze\s*("
syn match fsmInState contained "\(\<in\s*(\s*\)\@<=\h\w*"
" Properties: `property NAME: never FORMULA;` (or reachable, recoverable, escapable), the
" name optional; the formula is a guard over in(state) and `terminal` only.
syn match fsmPropertyKeyword "^\s*\zsproperty\>\ze\s\+\h" nextgroup=fsmPropertyName skipwhite
syn match fsmPropertyName contained "\h\w*" nextgroup=fsmPropertyColon skipwhite
" `property NAME: F leads to G assuming a, b;`: the formula right after the colon.
syn match fsmPropertyColon contained ":" nextgroup=fsmLeadsTo skipwhite skipnl
syn region fsmLeadsTo contained start="\ze\(!\|(\|\<in\s*(\|\<terminal\>\)" end=";" contains=fsmGuardOperator,fsmIn,fsmInState,fsmTerminal,fsmComment,fsmLeadsKeyword,fsmAssuming
syn match fsmLeadsKeyword contained "\<leads\s\+to\>"
syn region fsmAssuming contained matchgroup=fsmLeadsKeyword start="\<assuming\>" end="\ze;" contains=fsmActionName,fsmComment
syn region fsmProperty matchgroup=fsmPropertyKeyword start="\<\(never\|reachable\|recoverable\|escapable\)\>\ze\s*[!(]\|\<\(never\|reachable\|recoverable\|escapable\)\>\ze\s\+\(in\|terminal\)\>" matchgroup=NONE end=";" contains=fsmGuardOperator,fsmIn,fsmInState,fsmTerminal,fsmComment
syn match fsmTerminal contained "\<terminal\>"
" done ...; and always ...;: transitions without an action.
syn match fsmKeyword "\<\(done\|always\)\>\ze\s*\([[;]\|->\|\<\(priority\|do\|emit\)\>\)"
syn match fsmKeyword "\<priority\>\ze\s*\d" nextgroup=fsmNumber skipwhite
syn match fsmNumber "\<\d\+\(ms\|s\|m\|h\)\=\>"
syn match fsmArrow "->" nextgroup=fsmStateName skipwhite
syn match fsmDo "\<do\>\ze\s\+\h" nextgroup=fsmEffectName skipwhite
syn match fsmEffectName contained "\h\w*\(\s*,\s*\h\w*\)*" contains=fsmComma
syn match fsmEmit "\<emit\>\ze\s\+\h" nextgroup=fsmOutputName skipwhite
syn match fsmOutputName contained "\h\w*\(\s*,\s*\h\w*\)*" contains=fsmComma
syn match fsmAfter "\<after\>\ze\s\+\w" nextgroup=fsmNumber,fsmDelayName skipwhite
syn match fsmDelayName contained "\h\w*"
syn match fsmComma contained ","

hi def link fsmComment Comment
hi def link fsmDocComment SpecialComment
hi def link fsmTodo Todo
hi def link fsmAttributeDelim PreProc
hi def link fsmAllow PreProc
hi def link fsmLintCode Constant
hi def link fsmMachineKeyword Structure
hi def link fsmStateKeyword Structure
hi def link fsmContextKeyword Structure
hi def link fsmDeclKeyword Structure
hi def link fsmModifier StorageClass
hi def link fsmKeyword Keyword
hi def link fsmOn Keyword
hi def link fsmDo Keyword
hi def link fsmEmit Keyword
hi def link fsmAfter Keyword
hi def link fsmArrow Operator
hi def link fsmGuardOperator Operator
hi def link fsmIn Keyword
hi def link fsmPropertyKeyword Keyword
hi def link fsmPropertyName Label
hi def link fsmLeadsKeyword Keyword
hi def link fsmTerminal Constant
hi def link fsmInState Constant
hi def link fsmMachineName Type
hi def link fsmStateName Constant
hi def link fsmHistory Keyword
hi def link fsmActionName Function
hi def link fsmGuardName Identifier
hi def link fsmEffectName Special
hi def link fsmOutputName Label
hi def link fsmDelayName Identifier
hi def link fsmTypePath Type
hi def link fsmPrimitive Type
hi def link fsmPayloadType Type
hi def link fsmNumber Number

let b:current_syntax = 'fsm'
