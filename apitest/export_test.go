package apitest

// AdvertiseAddress is advertiseAddress, for the tests of the kubernetes Service.
var AdvertiseAddress = advertiseAddress
