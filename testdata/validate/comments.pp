# a line comment
/* a block comment
   over several lines */
notify { 'commented': # trailing comment
  message => /* inline */ 'still parsed',
}
# /* not a block comment inside a line comment
notify { 'after': }
