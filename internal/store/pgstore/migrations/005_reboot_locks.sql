-- FleetLock reboot slots: who holds one in which reboot group, since when.
CREATE TABLE reboot_locks (
    grp    text NOT NULL,
    holder text NOT NULL,
    since  timestamptz NOT NULL,
    PRIMARY KEY (grp, holder)
);
