/**
 * Which transport loops start on, for a server and a client alike: sits above the transport SPI and
 * its implementations (it names both), so neither names it.
 */
package dev.peregrine.transport.choice;
