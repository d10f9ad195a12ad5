# --graph writes resources.dot (containment), relationships.dot and
# expanded_relationships.dot (with container sentinels); `dot` accepts them.
class web { exec { 'a': command => 'echo a >> DIR/order' } }
include web
define vhost($port) { notify { "site ${title}": message => $port } }
vhost { 'shop "quoted"': port => 80 }
exec { 'b': command => 'echo b >> DIR/order' }
Class['web'] ~> Exec['b'] -> Vhost['shop "quoted"']
