# noop and schedule pass down containment from Class[Main] only: a class
# declared at top scope belongs to Stage[main], so its members keep their
# own settings; contain at top scope and defined types declared at top
# scope pass them on; a defined type inside an included class does not.
# `site` is an ordinary name. OFFHOURS is a range that excludes now.
Exec { path => '/usr/bin:/bin' }
schedule { 'offhours': range => 'OFFHOURS' }
class declared { exec { 'in_declared': command => 'echo in_declared >> DIR/order' } }
class { 'declared': noop => true }
class contained { exec { 'in_contained': command => 'echo in_contained >> DIR/order' } }
class { 'contained': noop => true }
contain contained
class scheduled { exec { 'in_scheduled': command => 'echo in_scheduled >> DIR/order' } }
class { 'scheduled': schedule => 'offhours' }
define wrapper { exec { "in_${title}": command => "echo in_${title} >> DIR/order" } }
wrapper { 'top_define': noop => true }
class site { wrapper { 'site_define': noop => true } }
include site
