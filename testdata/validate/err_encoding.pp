# A manifest saved as Latin-1 by an old editor.
notify { 'café ouvert':
  message => 'x',
}
