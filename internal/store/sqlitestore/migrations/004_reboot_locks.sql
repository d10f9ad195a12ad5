-- FleetLock reboot slots: who holds one in which reboot group, since when.
CREATE TABLE reboot_locks (
    grp    TEXT NOT NULL,
    holder TEXT NOT NULL,
    since  INTEGER NOT NULL,
    PRIMARY KEY (grp, holder)
);
