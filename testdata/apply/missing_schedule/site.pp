# A schedule that does not exist: Puppet 7.23 applies Exec[first], then
# aborts with "Failed to apply catalog: Could not find schedule nosuch".
# almanac finds it while compiling, so nothing is applied at all.
exec { 'first': command => 'echo first >> DIR/order' }
exec { 'b': schedule => 'nosuch', command => 'echo b >> DIR/order' }
exec { 'c': command => 'echo c >> DIR/order' }
