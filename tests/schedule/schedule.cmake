# How ctest schedules the slow and the heavy tests: ctest includes this file after every test of
# every directory is known (tests/schedule/CMakeLists.txt). A clean clone has no cost data from an earlier run, so without COST
# ctest starts tests in the order they were declared and the longest ones can start last and
# alone. COST (seconds, measured on 2 cores) starts them first; PROCESSORS 2 keeps a test that
# keeps both cores busy from sharing them with another. The names are checked by the
# test_schedule test, so a renamed test cannot silently drop out of here.

# Measured durations of the tests that take the longest (ctest --preset ci, 2 cores).
set(_shardmap_costs
  "AdminQuotasTest.AStoreLargerThanTheMessageLimitIsReadWholeThroughThePages" 46
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/etcd_seed1  # GetParam() = etcd/seed1" 29
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/etcd_seed2  # GetParam() = etcd/seed2" 24
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/sqlite_seed2  # GetParam() = sqlite/seed2" 23
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/sqlite_seed1  # GetParam() = sqlite/seed1" 21
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/etcd_seed2  # GetParam() = etcd/seed2.xapian" 33
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/sqlite_seed1  # GetParam() = sqlite/seed1.xapian" 31
  "CopiesChaos/CopiesChaosTest.NothingAcknowledgedIsLostWhileCopiesFail/sqlite_seed1  # GetParam() = sqlite/seed1" 26
  "CopiesChaos/CopiesChaosTest.NothingAcknowledgedIsLostWhileCopiesFail/etcd_seed1  # GetParam() = etcd/seed1" 27
  "packages" 21
  "MigrationTest.VerifyRepairsLargeDocumentsInChunks" 17
  "PartitionedPrimaryTest.NoWriteIsAcknowledgedByTheOldPrimaryAloneAfterThePromotion" 12
  "MapEndToEndTest.DropQueuesAMigrationThatMovesTheDocumentsAndTheTile" 9
  "HealthCommandTest.ASlowedBackfillFiresEtaGrowing" 9
  "Faults/MigrationFaultTest.InvariantsHoldAcrossTheFault/store_locked_past_busy_timeout  # GetParam() = store_locked_past_busy_timeout" 9
  "OverviewTest.NoExecutorAndAStalledMigrationFireFromTheMapAndTheLeases" 9
  "SecretFilesTest.ATokenTakenOutIsRefusedHoweverTheEditWentAndSaidAtError" 9
  "HealthCommandTest.AStalledMigrationFiresWhileTheExecutorIsHeldAndClearsWhenItMoves" 8
  "MapPageWordsTest.AnOutcomeGoesAtTheNextAction" 8
  "EtcdStoreTest.TalksTlsWithAClientCertificateAndRefusesWithoutOne" 7
  "MigrationTest.ALeaderDeposedDuringACommitDoesNotCommitUnfenced" 7
  "MigrationsPageTest.DetailViewOfARealMigrationShowsItsPhasesThroughputAndEvents" 7
  "ReportTest.EveryOutcomeAgreesInPdfCsvJsonAndWithTheStore" 6
  "DetailPageEndToEnd.HistoryThenLivePointsAndTheSpacesOfAShard" 6
  "doc_blocks" 6
  # Issue 32's snapshots: a fleet, a shardmapd and shardmapctl runs each (3 s at most alone, but
  # the schedule's 10 s).
  "SnapshotTest.TheScheduleTakesSnapshotsAndRetentionByAgeKeepsTheNewestUsableOne" 11
  "SnapshotTest.TheNewLeaderFailsAndCleansASnapshotItsKilledLeaderLeftRunning" 4
  "SnapshotTest.AMissingReadOnlyOrFullRepositoryFailsClearlyAndNothingIsUsable" 4
  "SnapshotTest.AnIncrementalSnapshotCopiesOnlyTheChangedShardAndDeleteKeepsWhatIsReferenced" 4
  "SnapshotTest.RetentionKeepsTheNewestByCount" 3
  "SnapshotTest.VerifyNamesTheFileWithACorruptByte" 3
  "SnapshotTest.ASnapshotWhileWritersWriteIsAConsistentPointOfEveryShard" 2
  "RestoreTest.ALeaderKilledMidRestoreLeavesItToTheNextLeaderWhoFinishesIt" 6
  "RestoreTest.ARestoreStoppedAfterTheLiveShardWasFencedLeavesTheSpaceWritable" 3
  "RestoreTest.ATenantDeletedByMistakeComesBackFromTheLastSnapshotAndOthersAreUntouched" 4
  "RestoreTest.ACorruptSnapshotIsRefusedAndAFileDamagedAfterItsVerifyFailsTheRestoreWithNothingChanged" 4)
# Tests that keep two cores busy themselves: the chaos runs (fleets under load with faults), the
# packages (cpack and lintian), 100 MiB of store read through pages, maps decoded on threads.
set(_shardmap_heavy
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/etcd_seed1  # GetParam() = etcd/seed1"
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/etcd_seed2  # GetParam() = etcd/seed2"
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/sqlite_seed1  # GetParam() = sqlite/seed1"
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/sqlite_seed2  # GetParam() = sqlite/seed2"
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/etcd_seed2  # GetParam() = etcd/seed2.xapian"
  "Chaos/ChaosTest.NothingIsLostAndEveryInvariantHoldsWhileFaultsLandAtRandomTimes/sqlite_seed1  # GetParam() = sqlite/seed1.xapian"
  "CopiesChaos/CopiesChaosTest.NothingAcknowledgedIsLostWhileCopiesFail/sqlite_seed1  # GetParam() = sqlite/seed1"
  "CopiesChaos/CopiesChaosTest.NothingAcknowledgedIsLostWhileCopiesFail/etcd_seed1  # GetParam() = etcd/seed1"
  "packages"
  "AdminQuotasTest.AStoreLargerThanTheMessageLimitIsReadWholeThroughThePages"
  "MapDecodeTest.ALargeMapDecodesOnSeveralThreadsToTheSameMap"
  "MapDecodeTest.TheFirstBadRecordInKeyOrderIsReportedWhateverThreadFindsIt")

list(LENGTH _shardmap_costs _length)
math(EXPR _last "${_length} - 1")
foreach(_i RANGE 0 ${_last} 2)
  math(EXPR _j "${_i} + 1")
  list(GET _shardmap_costs ${_i} _name)
  list(GET _shardmap_costs ${_j} _cost)
  set_tests_properties("${_name}" PROPERTIES COST ${_cost})
endforeach()
foreach(_name IN LISTS _shardmap_heavy)
  set_tests_properties("${_name}" PROPERTIES PROCESSORS 2)
endforeach()
