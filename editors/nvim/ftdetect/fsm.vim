" .fsm files are fsmc state machines.
autocmd BufNewFile,BufRead *.fsm setfiletype fsm
