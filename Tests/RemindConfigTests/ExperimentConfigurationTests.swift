import RemindConfig
import RemindCore
import Testing

/// The `experiment` section (docs/outcomes.md): strict, with the key path in every refusal.
struct ExperimentConfigurationTests {
    @Test func variantsAreWholeCopySets() throws {
        let configuration = try parse(
            #"{"experiment":{"holdoutPercent":10,"defaultWeight":2,"variants":[{"name":"mileage","weight":1,"#
                + #""notificationTitle":"Log every mile","byReason":{"locationServicesTurnedOff":"#
                + #"{"notificationDescription":"Turn on Location Services"}},"localizations":{"de":"#
                + #"{"notificationTitle":"Jede Meile zählt"}}}]}}"#)
        let experiment = configuration.policy.experiment
        #expect(experiment.holdoutPercent == 10 && experiment.defaultWeight == 2)
        #expect(experiment.variants.map(\.name) == ["mileage"])
        let copy = experiment.variants[0].copy
        #expect(copy.resolve(reason: .locationServicesTurnedOff, locale: "de-DE").title == "Jede Meile zählt")
        #expect(copy.resolve(reason: .locationServicesTurnedOff, locale: "en").body == "Turn on Location Services")
        // The effective configuration writes it back with every key.
        let effective = configuration.json.serialized
        #expect(
            effective.contains(
                #""experiment":{"holdoutPercent":10,"defaultWeight":2,"variants":[{"name":"mileage","weight":1,"notificationTitle":"Log every mile""#
            ))
    }

    @Test(arguments: [
        (#"{"holdoutPercent":101}"#, "experiment.holdoutPercent"),
        (#"{"holdoutPercent":-1}"#, "experiment.holdoutPercent"),
        (#"{"defaultWeight":-1}"#, "experiment.defaultWeight"),
        (#"{"variants":[{"name":"a","weight":-2}]}"#, "experiment.variants[0].weight"),
        (#"{"defaultWeight":0,"variants":[{"name":"a","weight":0}]}"#, "experiment.variants"),
        (#"{"defaultWeight":0}"#, "experiment.variants"),
        (#"{"variants":[{"name":"a"},{"name":"a"}]}"#, "experiment.variants[1].name"),
        (#"{"variants":[{"name":"default"}]}"#, "experiment.variants[0].name"),
        (#"{"variants":[{"name":"holdout"}]}"#, "experiment.variants[0].name"),
        (#"{"variants":[{"name":"has space"}]}"#, "experiment.variants[0].name"),
        (#"{"variants":[{"weight":1}]}"#, "experiment.variants[0].name"),
        (#"{"variants":[{"name":"a","colour":"red"}]}"#, "experiment.variants[0].colour"),
        (#"{"holdout":10}"#, "experiment.holdout"),
    ])
    func badExperimentsAreRefusedNamingTheKey(experiment: String, field: String) {
        let error = refusal(#"{"experiment":\#(experiment)}"#)
        #expect(error?.field == field, "\(experiment): \(String(describing: error))")
    }
}
