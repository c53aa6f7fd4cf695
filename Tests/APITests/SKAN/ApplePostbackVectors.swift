/// Apple's published example postbacks, with the signatures Apple made for them: SKAdNetwork 4.0
/// from "Verifying an install-validation postback", 3.0 from "Combining parameters for
/// SKAdNetwork 3 postbacks", 2.2 from "Combining parameters for previous SKAdNetwork postback
/// versions", and AdAttributionKit's example from "Identifying the parameters in a postback"
/// (signed with Apple's development key apple-development-identifier/1).
enum ApplePostbackVectors {
    static let appID = 525_463_029
    static let adAttributionKitAppID = 10_738_027_756

    /// A web ad, high data tier: four-digit source identifier and the fine value.
    static let skan4High = """
        {
          "version": "4.0",
          "ad-network-id": "com.example",
          "source-identifier": "5239",
          "app-id": 525463029,
          "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e30",
          "redownload": false,
          "source-domain": "example.com",
          "fidelity-type": 1,
          "did-win": true,
          "conversion-value": 63,
          "postback-sequence-index": 0,
          "attribution-signature": "MEUCIGRmSMrqedNu6uaHyhVcifs118R5z/AB6cvRaKrRRHWRAiEAv96ne3dKQ5kJpbsfk4eYiePmrZUU6sQmo+7zfP/1Bxo="
        }
        """

    /// A web ad, low data tier: two-digit source identifier and a coarse value.
    static let skan4Low = """
        {
          "version": "4.0",
          "ad-network-id": "com.example",
          "source-identifier": "39",
          "app-id": 525463029,
          "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e31",
          "redownload": false,
          "source-domain": "example.com",
          "fidelity-type": 1,
          "did-win": true,
          "coarse-conversion-value": "high",
          "postback-sequence-index": 0,
          "attribution-signature": "MEUCIQD4rX6eh38qEhuUKHdap345UbmlzA7KEZ1bhWZuYM8MJwIgMnyiiZe6heabDkGwOaKBYrUXQhKtF3P/ERHqkR/XpuA="
        }
        """

    static let skan3Winner = """
        {
          "version": "3.0",
          "ad-network-id": "example123.skadnetwork",
          "campaign-id": 42,
          "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
          "app-id": 525463029,
          "attribution-signature": "MEYCIQD5eq3AUlamORiGovqFiHWI4RZT/PrM3VEiXUrsC+M51wIhAPMANZA9c07raZJ64gVaXhB9+9yZj/X6DcNxONdccQij",
          "redownload": true,
          "source-app-id": 1234567891,
          "fidelity-type": 1,
          "conversion-value": 20,
          "did-win": true
        }
        """

    static let skan22 = """
        {
          "version": "2.2",
          "ad-network-id": "com.example",
          "campaign-id": 42,
          "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
          "app-id": 525463029,
          "attribution-signature": "MEYCIQDTuQ1Z4Tpy9D3aEKbxLl5J5iKiTumcqZikuY/AOD2U7QIhAJAaiAv89AoquHXJffcieEQXdWHpcV8ZgbKN0EwV9/sY",
          "redownload": true,
          "source-app-id": 1234567891,
          "fidelity-type": 1,
          "conversion-value": 20
        }
        """

    static let adAttributionKitDevelopment = """
        {
          "jws-string": "eyJraWQiOiJhcHBsZS1kZXZlbG9wbWVudC1pZGVudGlmaWVyXC8xIiwiYWxnIjoiRVMyNTYifQ.eyJwb3N0YmFjay1pZGVudGlmaWVyIjoiODU1NDZFQjctRkQzOS00NEJDLTg5OTAtQzk4QTRBQzM2QTQ5IiwicHVibGlzaGVyLWl0ZW0taWRlbnRpZmllciI6MCwibWFya2V0cGxhY2UtaWRlbnRpZmllciI6ImNvbS5hcHBsZS5BcHBTdG9yZSIsImltcHJlc3Npb24tdHlwZSI6ImFwcC1pbXByZXNzaW9uIiwiYWQtbmV0d29yay1pZGVudGlmaWVyIjoiZGV2ZWxvcG1lbnQuYWRhdHRyaWJ1dGlvbmtpdCIsImRpZC13aW4iOnRydWUsInBvc3RiYWNrLXNlcXVlbmNlLWluZGV4IjowLCJjb252ZXJzaW9uLXR5cGUiOiJyZS1lbmdhZ2VtZW50Iiwic291cmNlLWlkZW50aWZpZXIiOiIxMjM0IiwiYWR2ZXJ0aXNlZC1pdGVtLWlkZW50aWZpZXIiOjEwNzM4MDI3NzU2fQ.bAdNwKd6OfHK9tofvjjua4X_JPcFTxXPQSspD9gZkinw97pY7R1aI-LSjl-oxZZF3_K2H5JK5TSEBee4_1U4oQ",
          "conversion-value": 24,
          "ad-interaction-type": "click",
          "country-code": "US"
        }
        """
}
