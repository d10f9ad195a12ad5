# Values: strings, interpolation, escapes, numbers, booleans, undef,
# arrays, hashes, access and bare words.
$name = 'world'
$list = ['zero', 'one', 'two']
$h = { 'k' => 'v', 'n' => 42, 'nested' => { 'deep' => true } }
notify { 'single': message => 'it\'s \\ literal $name \n' }
notify { 'double': message => "hello ${name}, $name! tab\there quote\" dollar\$ \u00e9 \u{1F600} \q" }
notify { 'access': message => "${list[0]} ${list[-1]} $list[1] ${h['k']} ${h['nested']['deep']}" }
# In ${name == 'WORLD'} the leading bare word is not a variable: Puppet 7.23
# prints false here too.
notify { 'expr': message => "sum ${1 + 2 * 3} upper ${name == 'WORLD'}" }
notify { 'numbers': message => [42, 0x2A, 0644, 3.5, 1e3, -7] }
notify { 'scalars': message => [true, false, undef, present, 'str'] }
notify { 'hash': message => $h }
notify { 'empty': message => [[], {}] }
notify { 'past-end': message => "[${list[10]}]" }
