# --verbose adds Info lines (Puppet's wording): scheduling refreshes,
# unscheduling events of a skipped resource; --debug adds Debug lines.
exec { 'a': command => 'echo a >> DIR/order' }
exec { 'b': command => 'echo b >> DIR/order', refreshonly => true, schedule => 'never' }
exec { 'c': command => 'echo c >> DIR/order', refreshonly => true }
Exec['a'] ~> Exec['b']
Exec['a'] ~> Exec['c']
