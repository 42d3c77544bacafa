/**
 * Binds a Peregrine server's meters to a Micrometer {@code MeterRegistry}. Micrometer's jar is an
 * automatic module ({@code micrometer.core}); its types are in this module's API, hence
 * {@code requires transitive}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.peregrine.micrometer {
    requires transitive dev.peregrine;
    requires transitive micrometer.core;

    exports dev.peregrine.micrometer;
}
