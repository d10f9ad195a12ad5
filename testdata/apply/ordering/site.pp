# Unrelated resources run in manifest order; a resource that waits for
# another runs as soon as it is unblocked, ahead of later-declared ready
# ones (Puppet 7.23: z_first waits for m_last, then runs at once).
exec { 'z_first': command => 'echo z_first >> DIR/order', require => Exec['m_last'] }
exec { 'a': command => 'echo a >> DIR/order' }
exec { 'm_last': command => 'echo m_last >> DIR/order' }
exec { 'b': command => 'echo b >> DIR/order' }
exec { 'c': command => 'echo c >> DIR/order' }
exec { 'd': command => 'echo d >> DIR/order' }
